// The radix2_indexed stage kernel (one launch per radix-2 stage), and the
// resource query shared by all kernels.
#include "fhe/cuda/check.h"
#include "fhe/ntt/cuda/indexed_stage.cuh"
#include "fhe/ntt/cuda/kernels.h"

namespace fhe::ntt::gpu {
namespace {

template <typename Word, bool Forward>
__global__ void __launch_bounds__(kMaxBlockThreads) ntt_indexed_stage(IndexedStageArgs<Word> args) {
  allow_next_kernel_launch();
  const std::uint32_t butterfly = blockIdx.x * blockDim.x + threadIdx.x;
  if (butterfly >= (1u << (args.log_n - 1))) return;
  indexed_butterfly<Word, Forward>(args, blockIdx.y, butterfly);
}

template <typename Word>
using IndexedStageKernel = void (*)(IndexedStageArgs<Word>);

template <typename Word>
IndexedStageKernel<Word> select_kernel(bool forward) {
  return forward ? ntt_indexed_stage<Word, true> : ntt_indexed_stage<Word, false>;
}

}  // namespace

KernelResources query_kernel_resources(const void* kernel, std::string name,
                                       const LaunchShape& shape) {
  cudaFuncAttributes attributes{};
  FHE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel), name);
  KernelResources resources;
  resources.name = std::move(name);
  resources.registers_per_thread = attributes.numRegs;
  resources.static_shared_bytes = attributes.sharedSizeBytes;
  FHE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     &resources.max_blocks_per_sm, kernel, static_cast<int>(shape.block),
                     shape.dynamic_shared_bytes),
                 resources.name);
  return resources;
}

template <typename Word>
cudaError_t launch_indexed_stage(const IndexedStageArgs<Word>& args, bool forward,
                                 const LaunchShape& shape, cudaStream_t stream) {
  return launch_overlapped(select_kernel<Word>(forward), shape, stream, args);
}

template <typename Word>
KernelResources indexed_stage_resources(bool forward, const LaunchShape& shape) {
  const std::string name =
      std::string("ntt_indexed_stage<") + word_tag<Word>() + (forward ? ",forward>" : ",inverse>");
  return query_kernel_resources(reinterpret_cast<const void*>(select_kernel<Word>(forward)), name,
                                shape);
}

template cudaError_t launch_indexed_stage(const IndexedStageArgs<std::uint64_t>&, bool, const LaunchShape&, cudaStream_t);
template cudaError_t launch_indexed_stage(const IndexedStageArgs<std::uint32_t>&, bool, const LaunchShape&, cudaStream_t);
template KernelResources indexed_stage_resources<std::uint64_t>(bool, const LaunchShape&);
template KernelResources indexed_stage_resources<std::uint32_t>(bool, const LaunchShape&);

}  // namespace fhe::ntt::gpu
