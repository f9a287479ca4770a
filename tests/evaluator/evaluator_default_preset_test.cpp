// The default preset (logN 16, 35 Q + 4 P rows) with the CPU default
// backend: one multiply + relinearize + rescale and one rotation decrypt
// within the SPEC tolerances. Labelled `slow` (about a minute on 2 cores).
#include <gtest/gtest.h>

#include "evaluator/evaluator.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

TEST(DefaultPreset, MultiplyRelinearizeRescaleAndRotate) {
  CkksEngine engine(kDefaultPresetName, {.ntt_backend = "radix2_indexed", .seed = 34});
  engine.generate_keys({1});
  const Evaluator evaluator(engine);
  const std::size_t slots = engine.slot_count();
  const auto x = testing::random_message(slots, 1);
  const auto y = testing::random_message(slots, 2);
  const Ciphertext a = engine.encrypt_message(x), b = engine.encrypt_message(y);
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(a), x), 1e-5);

  const Ciphertext product = evaluator.rescale(evaluator.multiply_relinearize(a, b));
  EXPECT_EQ(product.level, 1);
  std::vector<std::complex<double>> expected(slots);
  for (std::size_t i = 0; i < slots; ++i) expected[i] = x[i] * y[i];
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(product), expected), 3e-5);

  const Ciphertext rotated = evaluator.rotate(a, 1);
  for (std::size_t i = 0; i < slots; ++i) expected[i] = x[(i + 1) % slots];
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(rotated), expected), 2e-5);
}

}  // namespace
}  // namespace fhe
