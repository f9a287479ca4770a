// Parsing and normalising operation weights.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "recommend/weights.h"

namespace fhelium {
namespace {

const std::vector<std::string> kOps = {"encrypt_message", "rotate_with_key", "rotate_many_by_steps[4]"};

TEST(Weights, EmptyMeansEqual) {
  const OperationWeights w = parse_weights("", kOps);
  EXPECT_FALSE(w.user_given);
  ASSERT_EQ(w.normalised.size(), kOps.size());
  for (double v : w.normalised) EXPECT_DOUBLE_EQ(v, 1.0 / 3.0);
}

TEST(Weights, UnnamedOperationsKeepOneAndAllAreNormalised) {
  const OperationWeights w = parse_weights("rotate_with_key=4,rotate_many_by_steps[4]=3", kOps);
  EXPECT_TRUE(w.user_given);
  EXPECT_DOUBLE_EQ(w.normalised[0], 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(w.normalised[1], 4.0 / 8.0);
  EXPECT_DOUBLE_EQ(w.normalised[2], 3.0 / 8.0);
}

TEST(Weights, HugeWeightsDoNotOverflowTheirSum) {
  const auto w = parse_weights("encrypt_message=1e308,rotate_with_key=1e308", kOps);
  ASSERT_EQ(w.normalised.size(), 3u);  // the unnamed third keeps 1, negligible beside the two
  EXPECT_DOUBLE_EQ(w.normalised[0], 0.5);
  EXPECT_DOUBLE_EQ(w.normalised[1], 0.5);
  EXPECT_GE(w.normalised[2], 0.0);
  EXPECT_LT(w.normalised[2], 1e-300);
}

TEST(Weights, RejectsBadText) {
  EXPECT_THROW(parse_weights("nope=1", kOps), fhe::InvalidArgument);
  EXPECT_THROW(parse_weights("rotate_with_key=1,rotate_with_key=2", kOps), fhe::InvalidArgument);
  EXPECT_THROW(parse_weights("rotate_with_key=-1", kOps), fhe::InvalidArgument);
  EXPECT_THROW(parse_weights("rotate_with_key=abc", kOps), fhe::InvalidArgument);
  EXPECT_THROW(parse_weights("rotate_with_key", kOps), fhe::InvalidArgument);
  EXPECT_THROW(parse_weights("rotate_with_key=1,", kOps), fhe::InvalidArgument);
  EXPECT_THROW(parse_weights("encrypt_message=0,rotate_with_key=0,rotate_many_by_steps[4]=0", kOps),
               fhe::InvalidArgument);
}

}  // namespace
}  // namespace fhelium
