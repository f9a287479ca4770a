// Levels: multiplying down through every level, key switching at every
// level (digits partially or wholly dropped), level drop, and presets with
// one special prime and with 32-bit words.
#include <gtest/gtest.h>

#include "evaluator/evaluator.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

using Message = std::vector<std::complex<double>>;

Message multiply(const Message& a, const Message& b) {
  Message out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] * b[i];
  return out;
}

Message rotated(const Message& x, int step) {
  Message out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[(i + step) % x.size()];
  return out;
}

TEST(EvaluatorLevels, MultiplyingDownThroughAllLevelsStaysWithinTolerance) {
  for (const char* name : {"test-slots4096-scale40-levels8-int64", "test-slots512-scale40-levels3-int64"}) {
    CkksEngine engine(name, {.seed = 1});
    engine.generate_keys();
    const Evaluator evaluator(engine);
    Message expected = testing::random_message(engine.slot_count(), 1);
    Ciphertext product = engine.encrypt_message(expected);
    for (int level = 0; level < engine.preset().levels; ++level) {
      const Message factor = testing::random_message(engine.slot_count(), 100 + level);
      const Ciphertext fresh = engine.encrypt_message(factor, level);
      product = evaluator.rescale(evaluator.multiply_relinearize(product, fresh));
      expected = multiply(expected, factor);
      ASSERT_EQ(product.level, level + 1);
      ASSERT_EQ(product.parts[0].first_row(), static_cast<std::size_t>(level + 1));
      EXPECT_LT(testing::max_abs_error(engine.decrypt_message(product), expected), 3e-5)
          << name << " after the multiply at level " << level;
    }
    EXPECT_EQ(product.level, engine.preset().levels);  // only the base prime left
  }
}

TEST(EvaluatorLevels, KeySwitchingAtEveryLevel) {
  // Level 0..L of a preset with 2-prime digits: every level drops a digit
  // partly or wholly; level L keeps only the base-prime digit.
  CkksEngine engine("test-slots2048-scale40-levels6-int64", {.seed = 2});
  engine.generate_keys({1});
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 3);
  const Message y = testing::random_message(engine.slot_count(), 4);
  for (int level = 0; level <= engine.preset().levels; ++level) {
    const Ciphertext a = engine.encrypt_message(x, level);
    EXPECT_LT(testing::max_abs_error(engine.decrypt_message(evaluator.rotate(a, 1)), rotated(x, 1)), 2e-5)
        << "rotate at level " << level;
    if (level < engine.preset().levels) {  // a product at the last level would overflow the base prime
      const Ciphertext b = engine.encrypt_message(y, level);
      const Ciphertext product = evaluator.rescale(evaluator.multiply_relinearize(a, b));
      EXPECT_LT(testing::max_abs_error(engine.decrypt_message(product), multiply(x, y)), 3e-5)
          << "multiply_relinearize at level " << level;
    }
  }
}

TEST(EvaluatorLevels, DropLevelKeepsTheMessageAndTheScale) {
  CkksEngine engine("test-slots2048-scale40-levels6-int64", {.seed = 3});
  engine.generate_keys();
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 5);
  const Ciphertext ct = engine.encrypt_message(x, 1);
  const Ciphertext dropped = evaluator.drop_level(ct, 4);
  EXPECT_EQ(dropped.level, 4);
  EXPECT_EQ(dropped.scale, ct.scale);
  EXPECT_EQ(dropped.parts[1].row_count(), 3u);
  EXPECT_EQ(dropped.parts[1].words(), ct.parts[1].copy_rows({4, 3}).words());
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(dropped), x), 1e-5);
}

TEST(EvaluatorLevels, RescaleDividesByTheDroppedPrime) {
  CkksEngine engine("test-slots2048-scale40-levels6-int64", {.seed = 4});
  engine.generate_keys();
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 6);
  // Encrypted at scale 2^80 so that the rescaled scale is about 2^40.
  const Ciphertext ct = engine.encrypt(engine.encode(x, 2, std::ldexp(1.0, 80)));
  const Ciphertext scaled = evaluator.rescale(ct);
  EXPECT_EQ(scaled.level, 3);
  EXPECT_EQ(scaled.parts[0].first_row(), 3u);
  EXPECT_DOUBLE_EQ(scaled.scale, ct.scale / static_cast<double>(engine.preset().q_primes[2]));
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(scaled), x), 1e-5);
}

TEST(EvaluatorLevels, Int32PresetWorks) {
  // 25-bit scale: a fresh slot's noise is about sigma sqrt(2N/3) sqrt(2) sqrt(N) / 2^25
  // = 4.5e-4 at N = 4096 (max over the slots about 2e-3), so the int64
  // tolerances cannot apply; this checks correctness, not the SPEC bound.
  CkksEngine engine("test-slots2048-scale25-levels4-int32", {.seed = 5});
  engine.generate_keys({1});
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 7);
  const Message y = testing::random_message(engine.slot_count(), 8);
  const Ciphertext a = engine.encrypt_message(x), b = engine.encrypt_message(y);
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(evaluator.rotate(a, 1)), rotated(x, 1)), 1e-2);
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(evaluator.rescale(evaluator.multiply_relinearize(a, b))),
                                   multiply(x, y)),
            1e-2);
}

}  // namespace
}  // namespace fhe
