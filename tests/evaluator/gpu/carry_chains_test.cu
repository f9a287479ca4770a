// The carry-chain multiply-adds (evaluator/cuda/carry_chains.cuh) on the
// device against their host forms, plain 64- and 128-bit C++ arithmetic:
// their PTX only runs here, and the key products and conversions take their
// sums from them.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "evaluator/cuda/carry_chains.cuh"
#include "fhe/cuda/check.h"
#include "tests/evaluator/gpu/gpu_test_util.h"

namespace fhe::cuda {
namespace {

using u64 = std::uint64_t;
constexpr int kTermsPerSum = 16;

// Row i of the inputs: x, y, acc. Outputs per row: the two mad_low forms,
// mad_wide_chained, then the low and high words of a Sum128 over
// kTermsPerSum rows from i (wrapping).
struct Results {
  u64 mad_low64, mad_low32, wide_chained, sum_low, sum_high;
};

FHE_HD Results results_at(const u64* x, const u64* y, const u64* acc, std::size_t i, std::size_t rows) {
  Results r;
  r.mad_low64 = mad_low(x[i], y[i], acc[i]);
  r.mad_low32 = mad_low(static_cast<std::uint32_t>(x[i]), y[i], acc[i]);
  // Past its callers' bound (acc + x y < 2^64) both forms wrap mod 2^64.
  r.wide_chained = mad_wide_chained(static_cast<std::uint32_t>(x[i]), static_cast<std::uint32_t>(y[i]), acc[i]);
  Sum128 sum;
  for (int t = 0; t < kTermsPerSum; ++t) sum.add(x[(i + t) % rows], y[(i + 2 * t) % rows]);
  const unsigned __int128 joined = sum.joined();
  r.sum_low = static_cast<u64>(joined);
  r.sum_high = static_cast<u64>(joined >> 64);
  return r;
}

__global__ void results_kernel(const u64* x, const u64* y, const u64* acc, std::size_t rows, Results* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < rows) out[i] = results_at(x, y, acc, i, rows);
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* p = nullptr;
  FHE_CUDA_CHECK(cudaMalloc(&p, host.size() * sizeof(T)));
  FHE_CUDA_CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

TEST(CudaCarryChains, DeviceSumsEqualTheHostArithmetic) {
  FHE_SKIP_WITHOUT_GPU();
  // The largest words first (every carry taken), then zeros and random words.
  std::vector<u64> x, y, acc;
  const u64 edges[] = {~u64{0}, ~u64{0} - 1, u64{0xffffffff}, u64{1} << 32, u64{1} << 63, 0, 1};
  for (u64 a : edges) {
    for (u64 b : edges) {
      x.push_back(a);
      y.push_back(b);
      acc.push_back(~u64{0});
    }
  }
  std::mt19937_64 random(20261202);
  while (x.size() < 4096) {
    x.push_back(random());
    y.push_back(random());
    acc.push_back(random());
  }
  const std::size_t rows = x.size();
  u64* dx = device_copy(x);
  u64* dy = device_copy(y);
  u64* dacc = device_copy(acc);
  Results* dout = nullptr;
  FHE_CUDA_CHECK(cudaMalloc(&dout, rows * sizeof(Results)));
  results_kernel<<<static_cast<unsigned>((rows + 255) / 256), 256>>>(dx, dy, dacc, rows, dout);
  FHE_CUDA_CHECK_LAUNCH("results_kernel");
  std::vector<Results> device(rows);
  FHE_CUDA_CHECK(cudaMemcpy(device.data(), dout, rows * sizeof(Results), cudaMemcpyDeviceToHost));
  for (u64* p : {dx, dy, dacc}) FHE_CUDA_CHECK(cudaFree(p));
  FHE_CUDA_CHECK(cudaFree(dout));
  for (std::size_t i = 0; i < rows; ++i) {
    const Results host = results_at(x.data(), y.data(), acc.data(), i, rows);
    ASSERT_EQ(device[i].mad_low64, host.mad_low64) << "row " << i;
    ASSERT_EQ(device[i].mad_low32, host.mad_low32) << "row " << i;
    ASSERT_EQ(device[i].wide_chained, host.wide_chained) << "row " << i;
    ASSERT_EQ(device[i].sum_low, host.sum_low) << "row " << i;
    ASSERT_EQ(device[i].sum_high, host.sum_high) << "row " << i;
  }
}

}  // namespace
}  // namespace fhe::cuda
