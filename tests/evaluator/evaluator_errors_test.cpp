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

// At the last level only the base prime is left: a product's scale 2^80
// would wrap around it and decrypt to garbage.
TEST_F(EvaluatorErrors, AProductWhoseScaleExceedsTheModulusIsRefused) {
  const Ciphertext last = evaluator_.drop_level(fresh_, 3);
  const std::string message = message_of([&] { evaluator_.multiply_relinearize(last, last); });
  EXPECT_NE(message.find("multiply: the product's scale 2^80"), std::string::npos) << message;
  EXPECT_NE(message.find("of level 3"), std::string::npos) << message;
  EXPECT_FALSE(message_of([&] { evaluator_.multiply_plain(last, engine_.encode(std::vector<double>{1.0}, 3)); })
                   .empty());
  EXPECT_TRUE(message_of([&] { evaluator_.multiply_relinearize(fresh_, fresh_); }).empty());
}

TEST_F(EvaluatorErrors, BadShapesAndLevels) {
  const Ciphertext three = evaluator_.multiply(fresh_, fresh_);
  EXPECT_FALSE(message_of([&] { evaluator_.multiply(three, fresh_); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.rotate(three, 1); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.drop_level(lower_, 0); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.drop_level(fresh_, 4); }).empty());
}

// Words of another preset or a hand-edited level are refused before any is
// read: the same N with other rows ran past the RNS basis, a smaller N past
// the key switcher's buffer, and level -1 crashed rescale.
TEST_F(EvaluatorErrors, OperandsThatAreNotThisPresetsAreRefused) {
  CkksEngine other("test-slots1024-scale40-levels4-int64", {.seed = 1});  // N = 2048, 5 Q rows
  other.generate_keys({1});
  const Ciphertext foreign = other.encrypt_message(testing::random_message(other.slot_count(), 2));
  std::string message = message_of([&] { evaluator_.add(foreign, foreign); });
  EXPECT_NE(message.find("add: a ciphertext part of N = 2048 over rows [0, 5) is not one of preset "
                         "test-slots512-scale40-levels3-int64, level 0 (N = 1024, rows [0, 4)"),
            std::string::npos)
      << message;
  EXPECT_FALSE(message_of([&] { evaluator_.rotate(foreign, 1); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.multiply_relinearize(foreign, foreign); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.multiply_plain(fresh_, other.encode(std::vector<double>{1.0})); }).empty());

  Ciphertext edited = fresh_;
  edited.level = -1;
  message = message_of([&] { evaluator_.rescale(edited); });
  EXPECT_NE(message.find("rescale: a ciphertext part: level -1 is outside [0, 3]"), std::string::npos) << message;
  edited.level = 2;  // rows still [0, 4)
  EXPECT_FALSE(message_of([&] { evaluator_.rescale(edited); }).empty());
  EXPECT_FALSE(message_of([&] { evaluator_.negate(edited); }).empty());
}

TEST_F(EvaluatorErrors, ScalesThatPrintAlikeSayHowFarApartTheyAre) {
  Ciphertext nudged = fresh_;
  nudged.scale *= 1 + 1.5e-7;
  const std::string message = message_of([&] { evaluator_.add(fresh_, nudged); });
  EXPECT_NE(message.find("differ by a relative 1.5e-07 (more than 1e-9"), std::string::npos) << message;
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
