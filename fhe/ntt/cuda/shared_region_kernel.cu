// The shared-memory region kernel: the trailing stages on 256-word tiles,
// three phases separated by block barriers, per direction and word type.
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/shared_region.cuh"

namespace fhe::ntt::gpu {
namespace {

template <typename Word, bool Forward, int Skip, int MinBlocks>
__global__ void __launch_bounds__(kMaxBlockThreads, MinBlocks) ntt_shared_region(PassArgs<Word> args) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t tiles_per_block = blockDim.x / kThreadsPerTile;
  if constexpr (Forward) {
    forward_columns<Word, Skip>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    tile_rows<true, Word, Skip>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    copy_tiles<Word, true>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
  } else {
    copy_tiles<Word, false>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    tile_rows<false, Word, Skip>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    inverse_columns<Word, Skip>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
  }
}

template <typename Word>
using SharedRegionKernel = void (*)(PassArgs<Word>);

template <typename Word, bool Forward, int Skip>
SharedRegionKernel<Word> select_cap(bool throughput) {
  return throughput ? ntt_shared_region<Word, Forward, Skip, kThroughputMinBlocksPerSm>
                    : ntt_shared_region<Word, Forward, Skip, kMinBlocksPerSm>;
}

// Regions of 8 stages (skip 0) or 6 (skip 2, radix8_compact).
template <typename Word>
SharedRegionKernel<Word> select_kernel(bool forward, int stage_count, bool throughput) {
  if (!shared_region_supported(stage_count)) {
    throw InvalidArgument("shared-memory NTT region of " + std::to_string(stage_count) +
                          " stages (the kernels do 6 or 8)");
  }
  if (stage_count == kTileBits) {
    return forward ? select_cap<Word, true, 0>(throughput) : select_cap<Word, false, 0>(throughput);
  }
  return forward ? select_cap<Word, true, 2>(throughput) : select_cap<Word, false, 2>(throughput);
}

}  // namespace

template <typename Word>
cudaError_t launch_shared_region(const PassArgs<Word>& args, bool forward,
                                 const LaunchShape& shape, cudaStream_t stream) {
  return launch_overlapped(select_kernel<Word>(forward, static_cast<int>(args.stage_count), shape.throughput),
                           shape, stream, args);
}

template <typename Word>
KernelResources shared_region_resources(int stage_count, bool forward, const LaunchShape& shape) {
  const std::string name = std::string("ntt_shared_region<") + word_tag<Word>() + ",s" +
                           std::to_string(stage_count) + (forward ? ",forward" : ",inverse") +
                           (shape.throughput ? ",throughput>" : ",latency>");
  return query_kernel_resources(
      reinterpret_cast<const void*>(select_kernel<Word>(forward, stage_count, shape.throughput)), name, shape);
}

template cudaError_t launch_shared_region(const PassArgs<std::uint64_t>&, bool, const LaunchShape&, cudaStream_t);
template cudaError_t launch_shared_region(const PassArgs<std::uint32_t>&, bool, const LaunchShape&, cudaStream_t);
template KernelResources shared_region_resources<std::uint64_t>(int, bool, const LaunchShape&);
template KernelResources shared_region_resources<std::uint32_t>(int, bool, const LaunchShape&);

}  // namespace fhe::ntt::gpu
