// The ckks-primitive suite on the CPU at the smallest test preset: keys
// built once, every primitive within the decryption-error gate, complete
// evidence.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "recommend/primitive_suite.h"
#include "recommend/recommend_run.h"
#include "tests/recommend/test_support.h"

namespace fhelium {
namespace {

TEST(PrimitiveSuite, CpuRunPassesTheGateAndTimesEveryPrimitive) {
  test::TempDir dir;
  RecommendOptions options;
  options.suite = "ckks-primitive";
  options.preset = "test-slots512-scale40-levels3-int64";
  options.device = "cpu";
  options.backends = {"radix2_indexed", "radix2_compact_group8_smem8"};
  options.warmup = 0;
  options.runs = 2;
  options.repetitions = 1;
  options.seed = 5;
  options.output = (dir.path() / "primitives.json").string();
  const RecommendPlan plan = resolve_request(options);
  auto suite = make_suite(plan);
  const nlohmann::json doc = run_recommendation(plan, *suite, {"test"});

  ASSERT_EQ(doc["correctness"].size(), 2u);
  for (const auto& c : doc["correctness"]) {
    EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
    for (const auto& [op, error] : c["checks"]["max_abs_error"].items())
      EXPECT_LT(error.get<double>(), 1e-4) << op;
    EXPECT_EQ(c["checks"]["max_abs_error"].size(), 7u);  // encrypt/decrypt, multiply, rotate, 4 hoisted
  }
  EXPECT_EQ(doc["metadata"]["operations"].size(), 5u);
  EXPECT_EQ(doc["evidence"].size(), 2u * 5u);
  EXPECT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["recommendation"]["confidence"], "low");
}

TEST(PrimitiveSuite, TheLastLevelIsRejectedBeforeAnyWork) {
  RecommendOptions options;
  options.suite = "ckks-primitive";
  options.preset = "test-slots512-scale40-levels3-int64";
  options.device = "cpu";
  options.level = 3;
  EXPECT_THROW(resolve_request(options), fhe::InvalidArgument);
}

}  // namespace
}  // namespace fhelium
