// Error paths of the evaluator: each throws fhe::InvalidArgument with the
// context needed to fix the call.
#include <gtest/gtest.h>

#include "evaluator/evaluator.h"
#include "fhe/core/error.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

class EvaluatorErrors : public ::testing::Test {
 protected:
  EvaluatorErrors() : engine_("test-slots512-scale40-levels3-int64", {.seed = 1}), evaluator_(engine_) {
    engine_.generate_keys({1});
    const auto z = testing::random_message(engine_.slot_count(), 1);
    fresh_ = engine_.encrypt_message(z);
    lower_ = engine_.encrypt_message(z, 1);
  }

  // The message of `call`'s InvalidArgument ("" when it did not throw one).
  template <typename Call>
  static std::string message_of(Call call) {
    try {
      call();
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "";
  }

  CkksEngine engine_;
  Evaluator evaluator_;
  Ciphertext fresh_, lower_;
};

TEST_F(EvaluatorErrors, MismatchedLevels) {
  const std::string message = message_of([&] { evaluator_.add(fresh_, lower_); });
  EXPECT_NE(message.find("levels 0 and 1"), std::string::npos) << message;
  EXPECT_NE(message.find("test-slots512-scale40-levels3-int64"), std::string::npos) << message;
  EXPECT_FALSE(message_of([&] { evaluator_.multiply_relinearize(fresh_, lower_); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.multiply_plain(fresh_, engine_.encode(std::vector<double>{1.0}, 2)); }).empty());
}

TEST_F(EvaluatorErrors, MismatchedScales) {
  const Ciphertext squared = evaluator_.multiply_relinearize(fresh_, fresh_);  // scale 2^80
  const std::string message = message_of([&] { evaluator_.add(squared, fresh_); });
  EXPECT_NE(message.find("scales 2^80"), std::string::npos) << message;
  EXPECT_FALSE(message_of([&] { evaluator_.add_plain(squared, engine_.encode(std::vector<double>{1.0})); }).empty());
}

TEST_F(EvaluatorErrors, MissingGaloisKey) {
  const std::string message = message_of([&] { evaluator_.rotate(fresh_, 2); });
  EXPECT_NE(message.find("no Galois key for element 25"), std::string::npos) << message;
  EXPECT_FALSE(message_of([&] { evaluator_.conjugate(fresh_); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.rotate_many_by_steps(fresh_, {1, 2}); }).empty());
  EXPECT_TRUE(message_of([&] { evaluator_.rotate(fresh_, 1); }).empty());
}

TEST_F(EvaluatorErrors, RescaleAtTheLastLevel) {
  const Ciphertext last = evaluator_.drop_level(fresh_, 3);
  const std::string message = message_of([&] { evaluator_.rescale(last); });
  EXPECT_NE(message.find("last level 3"), std::string::npos) << message;
}

TEST_F(EvaluatorErrors, BadShapesAndLevels) {
  const Ciphertext three = evaluator_.multiply(fresh_, fresh_);
  EXPECT_FALSE(message_of([&] { evaluator_.multiply(three, fresh_); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.rotate(three, 1); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.drop_level(lower_, 0); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.drop_level(fresh_, 4); }).empty());
}

TEST(EvaluatorWithoutKeys, RelinearizeNeedsKeys) {
  CkksEngine engine("test-slots512-scale40-levels3-int64");
  const Evaluator evaluator(engine);
  const Plaintext pt = engine.encode(std::vector<double>{1.0});
  const Ciphertext fake{{pt.poly, pt.poly, pt.poly}, 0, pt.scale};
  EXPECT_THROW(evaluator.relinearize(fake), InvalidArgument);
}

}  // namespace
}  // namespace fhe
