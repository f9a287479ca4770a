// The shared-memory region kernels: the trailing stages on 256-word tiles,
// three phases separated by block barriers, per direction and word type;
// 16 threads a tile, or 32 in the split kernel (split_region.cuh).
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/shared_region.cuh"
#include "fhe/ntt/cuda/split_region.cuh"

namespace fhe::ntt::gpu {
namespace {

template <typename Word, bool Forward, int Skip, bool Consecutive, int MinBlocks>
__global__ void __launch_bounds__(kMaxBlockThreads, MinBlocks) ntt_shared_region(PassArgs<Word> args) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t tiles_per_block = blockDim.x / kThreadsPerTile;
  if (block_skipped(args, blockIdx.x, tiles_per_block)) return;
  if constexpr (Forward) {
    forward_columns<Word, Skip, Consecutive>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    tile_rows<true, Word, Skip, Consecutive>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    copy_tiles<Word, true>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
  } else {
    copy_tiles<Word, false>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    tile_rows<false, Word, Skip, Consecutive>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    inverse_columns<Word, Skip, Consecutive>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
  }
}

// Split launches are latency-shaped: the latency kernels' register cap.
template <typename Word, bool Forward, int Skip>
__global__ void __launch_bounds__(kMaxBlockThreads, kMinBlocksPerSm) ntt_split_region(PassArgs<Word> args) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t tiles_per_block = blockDim.x / kSplitThreadsPerTile;
  if (block_skipped(args, blockIdx.x, tiles_per_block)) return;
  if constexpr (Forward) {
    split_forward_first<Word, Skip>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    split_middle<true, Word>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    split_forward_last<Word>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
  } else {
    split_inverse_first<Word>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    split_middle<false, Word>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
    __syncthreads();
    split_inverse_last<Word, Skip>(args, shared, blockIdx.x, tiles_per_block, threadIdx.x);
  }
}

template <typename Word>
using SharedRegionKernel = void (*)(PassArgs<Word>);

// The kernel for a region (with_region_variant), direction and launch
// shape. Throws for a region the kernels do not do (6 or 8 stages).
template <typename Word>
SharedRegionKernel<Word> select_kernel(int stage_count, bool consecutive, bool forward, const LaunchShape& shape) {
  if (!shared_region_supported(stage_count)) {
    throw InvalidArgument("shared-memory NTT region of " + std::to_string(stage_count) +
                          " stages (the kernels do 6 or 8)");
  }
  const auto stages = static_cast<std::uint32_t>(stage_count);
  return with_region_variant(stages, consecutive, [&]<int Skip, bool Consecutive>() -> SharedRegionKernel<Word> {
    if (shape.split) {  // the general twiddle formula: one kernel for both layouts
      return forward ? ntt_split_region<Word, true, Skip> : ntt_split_region<Word, false, Skip>;
    }
    if (forward) {
      return shape.throughput ? ntt_shared_region<Word, true, Skip, Consecutive, kThroughputMinBlocksPerSm>
                              : ntt_shared_region<Word, true, Skip, Consecutive, kMinBlocksPerSm>;
    }
    return shape.throughput ? ntt_shared_region<Word, false, Skip, Consecutive, kThroughputMinBlocksPerSm>
                            : ntt_shared_region<Word, false, Skip, Consecutive, kMinBlocksPerSm>;
  });
}

}  // namespace

template <typename Word>
cudaError_t launch_shared_region(const PassArgs<Word>& args, bool forward,
                                 const LaunchShape& shape, cudaStream_t stream) {
  return launch_overlapped(select_kernel<Word>(static_cast<int>(args.stage_count), args.address.consecutive,
                                               forward, shape),
                           shape, stream, args);
}

template <typename Word>
KernelResources shared_region_resources(int stage_count, bool consecutive, bool forward, const LaunchShape& shape) {
  const std::string name = std::string("ntt_shared_region<") + word_tag<Word>() + ",s" +
                           std::to_string(stage_count) + (consecutive ? ",consecutive" : "") +
                           (forward ? ",forward" : ",inverse") +
                           (shape.throughput ? ",throughput>" : shape.split ? ",latency,split>" : ",latency>");
  return query_kernel_resources(
      reinterpret_cast<const void*>(select_kernel<Word>(stage_count, consecutive, forward, shape)), name,
      shape);
}

template cudaError_t launch_shared_region(const PassArgs<std::uint64_t>&, bool, const LaunchShape&, cudaStream_t);
template cudaError_t launch_shared_region(const PassArgs<std::uint32_t>&, bool, const LaunchShape&, cudaStream_t);
template KernelResources shared_region_resources<std::uint64_t>(int, bool, bool, const LaunchShape&);
template KernelResources shared_region_resources<std::uint32_t>(int, bool, bool, const LaunchShape&);

}  // namespace fhe::ntt::gpu
