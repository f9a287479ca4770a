// The shared-memory region kernels: the trailing stages on 256-word tiles,
// three phases separated by block barriers, per direction and word type;
// 16 threads a tile, or 32 in the split kernel (split_region.cuh).
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/shared_region.cuh"
#include "fhe/ntt/cuda/split_region.cuh"

namespace fhe::ntt::gpu {
namespace {

// A region phase: (args, shared, block, tiles_per_block, thread).
template <typename Word>
using RegionPhase = void (*)(const PassArgs<Word>&, Word*, std::uint32_t, std::uint32_t, std::uint32_t);

// The body every region kernel shares: three phases (compile-time
// functions, so the calls are direct) with a block barrier between them,
// for blocks of ThreadsPerTile threads a tile.
template <typename Word, int ThreadsPerTile, RegionPhase<Word> First, RegionPhase<Word> Second,
          RegionPhase<Word> Third>
__device__ void run_region_phases(const PassArgs<Word>& args) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t tiles_per_block = blockDim.x / ThreadsPerTile;
  const std::uint32_t block = visit_index(args, blockIdx.x, gridDim.x);
  if (block_skipped(args, block, tiles_per_block)) return;
  First(args, shared, block, tiles_per_block, threadIdx.x);
  __syncthreads();
  Second(args, shared, block, tiles_per_block, threadIdx.x);
  __syncthreads();
  Third(args, shared, block, tiles_per_block, threadIdx.x);
}

template <typename Word, bool Forward, int Skip, bool Consecutive, int MinBlocks>
__global__ void __launch_bounds__(kMaxBlockThreads, MinBlocks) ntt_shared_region(PassArgs<Word> args) {
  if constexpr (Forward) {
    run_region_phases<Word, kThreadsPerTile, forward_columns<Word, Skip, Consecutive>,
                      tile_rows<true, Word, Skip, Consecutive>, copy_tiles<Word, true>>(args);
  } else {
    run_region_phases<Word, kThreadsPerTile, copy_tiles<Word, false>, tile_rows<false, Word, Skip, Consecutive>,
                      inverse_columns<Word, Skip, Consecutive>>(args);
  }
}

// Split launches are latency-shaped: the latency kernels' register cap.
template <typename Word, bool Forward, int Skip>
__global__ void __launch_bounds__(kMaxBlockThreads, kMinBlocksPerSm) ntt_split_region(PassArgs<Word> args) {
  if constexpr (Forward) {
    run_region_phases<Word, kSplitThreadsPerTile, split_forward_first<Word, Skip>, split_middle<true, Word>,
                      split_forward_last<Word>>(args);
  } else {
    run_region_phases<Word, kSplitThreadsPerTile, split_inverse_first<Word>, split_middle<false, Word>,
                      split_inverse_last<Word, Skip>>(args);
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
