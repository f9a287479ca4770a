// Device sampling kernels: one ChaCha20 block per thread, its four chunks
// mapped by the FHE_HD samplers of fhe/ckks/random_words.h.
#include "evaluator/cuda/sampling_kernels.h"

#include <string>

#include "fhe/core/error.h"
#include "fhe/cuda/check.h"

namespace fhe::cuda {
namespace {

constexpr unsigned kBlock = 256;
using u64 = std::uint64_t;

unsigned blocks_for(std::size_t count) { return static_cast<unsigned>((count + kBlock - 1) / kBlock); }

struct SmallDraws {
  SmallDraw draw[kMaxSmallDraws];
};
static_assert(kMaxSmallDraws == 3, "sample_small_kernel selects draws 0, 1, 2");

// Four consecutive words (32 bytes, 16-byte aligned: a group starts at a
// multiple of 4 words of a cudaMalloc'd row) as two vector stores.
__device__ __forceinline__ void store_group(u64* out, const u64 words[kCoefficientsPerGroup]) {
  reinterpret_cast<ulonglong2*>(out)[0] = make_ulonglong2(words[0], words[1]);
  reinterpret_cast<ulonglong2*>(out)[1] = make_ulonglong2(words[2], words[3]);
}

// grid.y = draw. The block is computed once; its four values enter every row.
__global__ void sample_small_kernel(u64 seed, SmallDraws draws, std::size_t first_row, std::size_t rows, int log_n,
                                    const Modulus<u64>* __restrict__ moduli) {
  const std::size_t group = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (group >= (std::size_t{1} << log_n) / kCoefficientsPerGroup) return;
  // Constant indices keep the draws in the parameter space (a dynamic index
  // would copy the array to local memory).
  const SmallDraw draw = blockIdx.y == 0 ? draws.draw[0] : blockIdx.y == 1 ? draws.draw[1] : draws.draw[2];
  int values[kCoefficientsPerGroup];
  small_group(seed, draw.stream, draw.distribution, static_cast<std::uint32_t>(group), values);
  u64* out = draw.out + group * kCoefficientsPerGroup;
  for (std::size_t r = 0; r < rows; ++r) {
    const u64 q = moduli[first_row + r].value;
    u64 words[kCoefficientsPerGroup];
#pragma unroll
    for (int c = 0; c < kCoefficientsPerGroup; ++c) words[c] = small_coefficient_word(values[c], q);
    store_group(out + (r << log_n), words);
  }
}

// grid.y = row: each row has its own stream row id, hence its own blocks.
__global__ void sample_uniform_kernel(u64 seed, u64 stream_id, u64* __restrict__ out, std::size_t first_row,
                                      int log_n, const Modulus<u64>* __restrict__ moduli) {
  const std::size_t group = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (group >= (std::size_t{1} << log_n) / kCoefficientsPerGroup) return;
  const std::size_t row = first_row + blockIdx.y;
  const Modulus<u64> q = moduli[row];
  u64 words[kCoefficientsPerGroup];
  uniform_group(seed, stream_id, static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(group), q, words);
  store_group(out + (static_cast<std::size_t>(blockIdx.y) << log_n) + group * kCoefficientsPerGroup, words);
}

}  // namespace

void launch_sample_small(u64 seed, const SmallDraw* draws, int draw_count, std::size_t first_row, std::size_t rows,
                         int log_n, const Modulus<u64>* moduli, cudaStream_t stream) {
  if (draw_count < 1 || draw_count > kMaxSmallDraws) {
    throw InvalidArgument("launch_sample_small: " + std::to_string(draw_count) + " draws (1 to " +
                          std::to_string(kMaxSmallDraws) + ")");
  }
  SmallDraws packed;
  for (int d = 0; d < draw_count; ++d) packed.draw[d] = draws[d];
  const dim3 grid(blocks_for((std::size_t{1} << log_n) / kCoefficientsPerGroup), static_cast<unsigned>(draw_count));
  sample_small_kernel<<<grid, kBlock, 0, stream>>>(seed, packed, first_row, rows, log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("sample_small_kernel");
}

void launch_sample_uniform(u64 seed, u64 stream_id, u64* out, std::size_t first_row, std::size_t rows, int log_n,
                           const Modulus<u64>* moduli, cudaStream_t stream) {
  const dim3 grid(blocks_for((std::size_t{1} << log_n) / kCoefficientsPerGroup), static_cast<unsigned>(rows));
  sample_uniform_kernel<<<grid, kBlock, 0, stream>>>(seed, stream_id, out, first_row, log_n, moduli);
  FHE_CUDA_CHECK_LAUNCH("sample_uniform_kernel");
}

}  // namespace fhe::cuda
