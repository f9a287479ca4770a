// An evaluator on cuda:1 driven while cuda:0 is current (label gpu; skipped
// with the reason below two GPUs): every operation runs on its evaluator's
// device, gives the CPU's words and leaves the caller's device current.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "evaluator/cuda/cuda_encryptor.h"
#include "evaluator/evaluator.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

int current_device() {
  int device = -1;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  return device;
}

TEST(CudaEvaluatorDevice, OperationsRunOnTheEvaluatorsDeviceAndRestoreTheCallers) {
  const GpuInventory inventory = query_gpus();
  if (inventory.gpus.size() < 2) GTEST_SKIP() << "needs 2 CUDA devices, " << inventory.gpus.size() << " visible";
  CkksEngine cpu_engine(kPreset, {.device = "cpu", .seed = 77});
  CkksEngine gpu_engine(kPreset, {.device = "cuda:1", .seed = 77});
  for (CkksEngine* e : {&cpu_engine, &gpu_engine}) e->generate_keys({1, -2}, true);
  const Evaluator cpu(cpu_engine);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const CudaEvaluator gpu(gpu_engine);
  CudaEncryptor encryptor(gpu_engine, gpu);
  ASSERT_EQ(current_device(), 0) << "construction";

  const Ciphertext cx = cpu_engine.encrypt_message(testing::random_message(cpu_engine.slot_count(), 1));
  const Ciphertext cy = cpu_engine.encrypt_message(testing::random_message(cpu_engine.slot_count(), 2));
  CudaCiphertext dx = gpu.make_ciphertext(), dy = gpu.make_ciphertext();
  CudaCiphertext product = gpu.make_ciphertext(), out = gpu.make_ciphertext(), plain = gpu.make_ciphertext();
  gpu.upload(cx, dx);
  gpu.upload(cy, dy);
  gpu.multiply_relinearize(dx, dy, product);
  gpu.rescale(product, out);
  EXPECT_EQ(current_device(), 0) << "multiply_relinearize, rescale";
  EXPECT_TRUE(testing::same_words(gpu.download(out), cpu.rescale(cpu.multiply_relinearize(cx, cy))));

  std::vector<CudaCiphertext> rotated;
  for (int i = 0; i < 2; ++i) rotated.push_back(gpu.make_ciphertext());
  gpu.rotate_many_by_steps(dx, {1, -2}, rotated);
  EXPECT_EQ(current_device(), 0) << "rotate_many_by_steps";
  const std::vector<Ciphertext> expected = cpu.rotate_many_by_steps(cx, {1, -2});
  for (std::size_t i = 0; i < rotated.size(); ++i) {
    EXPECT_TRUE(testing::same_words(gpu.download(rotated[i]), expected[i])) << "rotation " << i;
  }

  const auto message = testing::random_message(cpu_engine.slot_count(), 3);
  gpu.upload(cpu_engine.encode(message), plain);
  encryptor.encrypt(plain, out);
  const Plaintext decrypted = gpu.decrypt(out);
  EXPECT_EQ(current_device(), 0) << "encrypt, decrypt";
  EXPECT_LT(testing::max_abs_error(cpu_engine.decode(decrypted), message), 1e-5);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // nothing was launched on cuda:0
}

}  // namespace
}  // namespace fhe
