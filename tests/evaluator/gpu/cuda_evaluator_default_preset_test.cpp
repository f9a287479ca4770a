// The default preset (logN 16, 35 Q + 4 P primes, dnum 10) on the CUDA
// stable fallback (group8: its three passes before a caller's region as one
// pass group), on group16 (the H200 suites' fastest, whose 4-stage passes
// the fallback does not run), on radix4 (its four 2-stage passes as one
// group) and on group4 (the same group on the compact layout's twiddles):
// GPU words equal CPU words for the suite's primitives, rotate_many at
// levels 0 and 17, a rotation at level 33 (every digit lifted).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "evaluator/evaluator.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

class CudaEvaluatorDefaultPreset : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaEvaluatorDefaultPreset, SameWordsAsCpu) {
  FHE_SKIP_WITHOUT_GPU();
  const std::vector<int> steps = {1, 2, 4, 8};
  CkksEngine engine("slots32768-scale40-levels34-int64", {.device = "cuda:0", .ntt_backend = GetParam(), .seed = 34});
  engine.generate_keys(steps);
  const Evaluator cpu(engine);  // host plan of the same backend
  const CudaEvaluator gpu(engine);
  const auto x = testing::random_message(engine.slot_count(), 1), y = testing::random_message(engine.slot_count(), 2);
  const Ciphertext cx = engine.encrypt_message(x), cy = engine.encrypt_message(y);
  CudaCiphertext dx = gpu.make_ciphertext(), dy = gpu.make_ciphertext(), t = gpu.make_ciphertext(),
                 out = gpu.make_ciphertext();
  gpu.upload(cx, dx);
  gpu.upload(cy, dy);
  gpu.multiply_relinearize(dx, dy, t);
  const Ciphertext product = cpu.multiply_relinearize(cx, cy);
  EXPECT_TRUE(testing::same_words(gpu.download(t), product));
  gpu.rescale(t, out);
  const Ciphertext scaled = cpu.rescale(product);
  EXPECT_TRUE(testing::same_words(gpu.download(out), scaled));
  std::vector<std::complex<double>> xy(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xy[i] = x[i] * y[i];
  EXPECT_LT(testing::max_abs_error(engine.decode(gpu.decrypt(out)), xy), 3e-5);
  gpu.rotate(dx, 1, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.rotate(cx, 1)));
  std::vector<CudaCiphertext> many;
  for (std::size_t i = 0; i < steps.size(); ++i) many.push_back(gpu.make_ciphertext());
  gpu.rotate_many_by_steps(dx, steps, many);
  const auto expected = cpu.rotate_many_by_steps(cx, steps);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_TRUE(testing::same_words(gpu.download(many[i]), expected[i])) << "step " << steps[i];
  }
  // Three steps at level 17 (6 digits: rounds of five, two tiles a block in
  // the several-steps fused region).
  const std::vector<int> three = {1, 2, 4};
  const Ciphertext low = cpu.drop_level(cx, 17);
  gpu.drop_level(dx, 17, t);
  ASSERT_TRUE(testing::same_words(gpu.download(t), low));
  many.resize(three.size());
  gpu.rotate_many_by_steps(t, three, many);
  const auto expected_low = cpu.rotate_many_by_steps(low, three);
  for (std::size_t i = 0; i < three.size(); ++i) {
    EXPECT_TRUE(testing::same_words(gpu.download(many[i]), expected_low[i])) << "level 17, step " << three[i];
  }
  // Level 33: two digits of one prime each, both lifted by the forward's
  // first pass (no conversion launch).
  const Ciphertext last = cpu.drop_level(cx, 33);
  gpu.drop_level(dx, 33, t);
  gpu.rotate(t, 2, out);
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.rotate(last, 2))) << "level 33";
}

// "" is the engine's default CUDA backend, the stable fallback (group8).
INSTANTIATE_TEST_SUITE_P(Backends, CudaEvaluatorDefaultPreset,
                         ::testing::Values(std::string(), std::string("radix2_compact_group16_smem8"),
                                           std::string("radix4_compact"), std::string("radix2_compact_group4_smem8")),
                         [](const auto& info) { return info.param.empty() ? std::string("default") : info.param; });

}  // namespace
}  // namespace fhe
