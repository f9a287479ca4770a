// The ModUp's conversion fused with the first forward pass (conversion_pass.h).
#include "evaluator/cuda/conversion_pass.h"

#include <string>

#include "evaluator/cuda/conversion_pass.cuh"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/ntt/cuda/kernels.h"

namespace fhe::cuda {
namespace {

// Block (x = a run of pass columns, y = digit, z = slice of targets); each
// thread's lift slots interleaved with its neighbours' (conflict-free).
// 3 blocks of 128 threads an SM: at most 170 registers, and 3 x 64 KiB of
// lift slots fit the SM's shared memory.
template <typename Word, int G>
__global__ void __launch_bounds__(kConversionPassMaxThreads, 3)
    conversion_pass_kernel(const __grid_constant__ ConversionPassArgs<Word> f) {
  ntt::gpu::allow_next_kernel_launch();
  extern __shared__ __align__(16) std::uint64_t lift_slots[];
  conversion_pass_thread<Word, G>(f, blockIdx.y, blockIdx.z, blockIdx.x * blockDim.x + threadIdx.x,
                                  lift_slots + threadIdx.x, blockDim.x);
}

template <typename Word, int G>
void launch_for_stages(const ntt::gpu::PassArgs<Word>& pass, const DeviceConversion* conversions,
                       const std::uint64_t* source, int digits, int max_targets, int max_sources,
                       cudaStream_t stream) {
  const auto kernel = conversion_pass_kernel<Word, G>;
  const std::size_t slot_bytes = conversion_pass_slots<G>(max_sources) * sizeof(std::uint64_t);
  const std::uint32_t items = conversion_pass_items_per_row<G>(pass.log_n);
  unsigned threads = kConversionPassMaxThreads;
  while (threads > 32 && threads * slot_bytes > kConversionPassMaxSharedBytes) threads /= 2;
  if (threads > items) threads = items;
  ntt::gpu::LaunchShape shape;
  shape.block = threads;
  shape.grid_x = items / threads;
  shape.grid_y = static_cast<unsigned>(digits);
  shape.dynamic_shared_bytes = threads * slot_bytes;
  FHE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(kConversionPassMaxSharedBytes)));
  const ConversionPassArgs<Word> f{pass, conversions, source, kConversionPassTargetsPerSlice};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(shape.grid_x, shape.grid_y,
                        static_cast<unsigned>((max_targets + kConversionPassTargetsPerSlice - 1) /
                                              kConversionPassTargetsPerSlice));
  config.blockDim = dim3(shape.block, 1, 1);
  config.dynamicSmemBytes = shape.dynamic_shared_bytes;
  config.stream = stream;
  FHE_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, f));
}

template <typename Word>
void launch_for_word(const ntt::gpu::PassArgs<Word>& pass, const DeviceConversion* conversions,
                     const std::uint64_t* source, int digits, int max_targets, int max_sources, cudaStream_t stream) {
  switch (pass.stage_count) {
    case 1: return launch_for_stages<Word, 1>(pass, conversions, source, digits, max_targets, max_sources, stream);
    case 2: return launch_for_stages<Word, 2>(pass, conversions, source, digits, max_targets, max_sources, stream);
    case 3: return launch_for_stages<Word, 3>(pass, conversions, source, digits, max_targets, max_sources, stream);
    case 4: return launch_for_stages<Word, 4>(pass, conversions, source, digits, max_targets, max_sources, stream);
  }
  throw InvalidArgument("launch_conversion_pass: a first pass of " + std::to_string(pass.stage_count) +
                        " stages (the kernels fuse 1 to 4)");
}

}  // namespace

void launch_conversion_pass(const ntt::gpu::ForwardPass& first_pass, const DeviceConversion* conversions,
                            const std::uint64_t* source, int digits, int max_targets, int max_sources,
                            cudaStream_t stream) {
  if (max_sources < 1 || max_sources > kMaxConversionSources || digits < 1 || max_targets < 1) {
    throw InvalidArgument("launch_conversion_pass: " + std::to_string(digits) + " digits of up to " +
                          std::to_string(max_sources) + " sources (1 to " + std::to_string(kMaxConversionSources) +
                          ") and " + std::to_string(max_targets) + " targets");
  }
  if (first_pass.is_wide) {
    launch_for_word(first_pass.wide, conversions, source, digits, max_targets, max_sources, stream);
  } else {
    launch_for_word(first_pass.narrow, conversions, source, digits, max_targets, max_sources, stream);
  }
}

}  // namespace fhe::cuda
