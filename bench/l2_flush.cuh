// The benchmarks' cold start: a kernel reads a buffer twice the L2 size so
// that the L2 holds nothing of the timed work's data (reads leave no dirty
// lines to write back inside the timed region).
#pragma once

#include <cstddef>

#include "fhe/core/device_info.h"
#include "fhe/cuda/device_buffer.h"

// Internal linkage: each benchmark file has its own kernel (no device link).
namespace fhelium_bench {
namespace {

// Reads every 16-byte word of `words`; the sink write never happens but
// keeps the reads alive.
__global__ void read_to_flush_l2(const uint4* words, std::size_t count, unsigned* sink) {
  unsigned mix = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 w = words[i];
    mix ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (mix == 0x9e3779b9u) *sink = mix;
}

// A buffer twice the L2 size and the kernel that reads it before a cold sample.
class L2Flush {
 public:
  L2Flush() : words_(2 * fhe::query_gpus().gpus.at(0).l2_cache_bytes / sizeof(uint4)) {
    FHE_CUDA_CHECK(cudaMemset(words_.data(), 1, words_.bytes()));
  }
  void run(cudaStream_t stream) {
    read_to_flush_l2<<<1024, 256, 0, stream>>>(words_.data(), words_.size(), sink_.data());
    FHE_CUDA_CHECK(cudaGetLastError());
  }

 private:
  fhe::cuda::DeviceBuffer<uint4> words_;
  fhe::cuda::DeviceBuffer<unsigned> sink_{1};
};

}  // namespace
}  // namespace fhelium_bench
