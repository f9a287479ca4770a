// The ModUp's conversion fused with the first forward pass (conversion_pass.h).
#include "evaluator/cuda/conversion_pass.h"

#include <string>

#include "evaluator/cuda/conversion_pass.cuh"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"

namespace fhe::cuda {
namespace {

// Block (x = a run of columns, y = digit, z = slice of targets): the lift,
// a barrier, the targets. 3 blocks an SM (at most 113 registers).
template <typename Word, int G>
__global__ void __launch_bounds__(kConversionPassThreads, 3)
    conversion_pass_kernel(const __grid_constant__ ConversionPassArgs<Word> f) {
  extern __shared__ __align__(16) std::uint64_t lifts[];
  conversion_pass_lift<Word, G>(f, blockIdx.x, blockIdx.y, threadIdx.x, lifts);
  __syncthreads();
  conversion_pass_target<Word, G>(f, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, lifts);
}

template <typename Word, int G>
void launch_for_stages(const ConversionPassArgs<Word>& f, int digits, int max_targets, int max_sources,
                       cudaStream_t stream) {
  const std::uint32_t items = conversion_pass_items_per_row<G>(f.pass.log_n);
  if (items % kConversionPassItems != 0) {
    throw InvalidArgument("launch_conversion_pass: " + std::to_string(items) + " columns a row (a multiple of " +
                          std::to_string(kConversionPassItems) + " needed)");
  }
  const dim3 grid(items / kConversionPassItems, static_cast<unsigned>(digits),
                  static_cast<unsigned>((max_targets + kConversionPassTargets - 1) / kConversionPassTargets));
  const std::size_t shared = conversion_pass_slots<G>(max_sources) * sizeof(std::uint64_t);
  conversion_pass_kernel<Word, G><<<grid, kConversionPassThreads, shared, stream>>>(f);
  FHE_CUDA_CHECK_LAUNCH("conversion_pass_kernel");
}

template <typename Word>
void launch_for_word(const ntt::gpu::PassArgs<Word>& pass, const DeviceConversion* conversions,
                     const std::uint64_t* source, int digits, int max_targets, int max_sources, cudaStream_t stream) {
  const ConversionPassArgs<Word> f{pass, conversions, source};
  switch (pass.stage_count) {
    case 1: return launch_for_stages<Word, 1>(f, digits, max_targets, max_sources, stream);
    case 2: return launch_for_stages<Word, 2>(f, digits, max_targets, max_sources, stream);
    case 3: return launch_for_stages<Word, 3>(f, digits, max_targets, max_sources, stream);
    case 4: return launch_for_stages<Word, 4>(f, digits, max_targets, max_sources, stream);
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
