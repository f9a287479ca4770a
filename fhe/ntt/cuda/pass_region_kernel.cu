// The pass-region kernels (pass_region.cuh): a global pass of G = 1..4
// stages and the 8-stage shared region in one launch, per direction, word
// type and region twiddle layout, at the throughput register cap (the plan
// fuses only launches that fill the GPU: runs_pass_with_region).
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/pass_region.cuh"

namespace fhe::ntt::gpu {
namespace {

// The register cap: the throughput kernels' (kernel_params.h).
constexpr int kPassRegionMinBlocks = kThroughputMinBlocksPerSm;

// Forward: the pass into shared memory, then the region's three phases;
// inverse: the region's phases, its columns left in shared memory, then
// the pass. A block barrier between phases, as in the region kernel.
template <typename Word, bool Forward, int G, bool Consecutive>
__global__ void __launch_bounds__(kMaxBlockThreads, kPassRegionMinBlocks)
    ntt_pass_region(PassArgs<Word> pass, PassArgs<Word> region) {
  allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  constexpr std::uint32_t kTiles = PassRegionBlock<G>::kTiles;
  const std::uint32_t block = visit_index(region, blockIdx.x, gridDim.x);
  if (block_skipped(region, block, kTiles)) return;
  const std::uint32_t first_tile = block_first_tile(region, block, kTiles);
  if constexpr (Forward) {
    pass_in_region_block<Word, G, true>(pass, shared, first_tile, threadIdx.x);
    __syncthreads();
    forward_columns<Word, 0, Consecutive, true>(region, shared, block, kTiles, threadIdx.x);
    __syncthreads();
    tile_rows<true, Word, 0, Consecutive>(region, shared, block, kTiles, threadIdx.x);
    __syncthreads();
    copy_tiles<Word, true>(region, shared, block, kTiles, threadIdx.x);
  } else {
    copy_tiles<Word, false>(region, shared, block, kTiles, threadIdx.x);
    __syncthreads();
    tile_rows<false, Word, 0, Consecutive>(region, shared, block, kTiles, threadIdx.x);
    __syncthreads();
    inverse_columns<Word, 0, Consecutive, true>(region, shared, block, kTiles, threadIdx.x);
    __syncthreads();
    pass_in_region_block<Word, G, false>(pass, shared, first_tile, threadIdx.x);
  }
}

template <typename Word>
using PassRegionKernel = void (*)(PassArgs<Word>, PassArgs<Word>);

template <typename Word, bool Forward, bool Consecutive>
PassRegionKernel<Word> select_stages(int pass_stages) {
  switch (pass_stages) {
    case 1: return ntt_pass_region<Word, Forward, 1, Consecutive>;
    case 2: return ntt_pass_region<Word, Forward, 2, Consecutive>;
    case 3: return ntt_pass_region<Word, Forward, 3, Consecutive>;
    case 4: return ntt_pass_region<Word, Forward, 4, Consecutive>;
  }
  throw InvalidArgument("pass-region kernel with a pass of " + std::to_string(pass_stages) +
                        " stages (the kernels fuse 1 to 4)");
}

template <typename Word>
PassRegionKernel<Word> select_kernel(int pass_stages, bool consecutive, bool forward) {
  if (forward) {
    return consecutive ? select_stages<Word, true, true>(pass_stages) : select_stages<Word, true, false>(pass_stages);
  }
  return consecutive ? select_stages<Word, false, true>(pass_stages) : select_stages<Word, false, false>(pass_stages);
}

}  // namespace

template <typename Word>
cudaError_t launch_pass_region(const PassArgs<Word>& pass, const PassArgs<Word>& region, bool forward,
                               const LaunchShape& shape, cudaStream_t stream) {
  const auto kernel = select_kernel<Word>(static_cast<int>(pass.stage_count), region.address.consecutive, forward);
  return launch_overlapped(kernel, grid_of(shape), dim3(shape.block, 1, 1), shape.dynamic_shared_bytes, stream,
                           pass, region);
}

template <typename Word>
KernelResources pass_region_resources(int pass_stages, bool consecutive, bool forward, const LaunchShape& shape) {
  const std::string name = std::string("ntt_pass_region<") + word_tag<Word>() + ",g" + std::to_string(pass_stages) +
                           (consecutive ? ",consecutive" : "") + (forward ? ",forward" : ",inverse") +
                           ",throughput>";
  return query_kernel_resources(reinterpret_cast<const void*>(select_kernel<Word>(pass_stages, consecutive, forward)),
                                name, shape);
}

template cudaError_t launch_pass_region(const PassArgs<std::uint64_t>&, const PassArgs<std::uint64_t>&, bool,
                                        const LaunchShape&, cudaStream_t);
template cudaError_t launch_pass_region(const PassArgs<std::uint32_t>&, const PassArgs<std::uint32_t>&, bool,
                                        const LaunchShape&, cudaStream_t);
template KernelResources pass_region_resources<std::uint64_t>(int, bool, bool, const LaunchShape&);
template KernelResources pass_region_resources<std::uint32_t>(int, bool, bool, const LaunchShape&);

}  // namespace fhe::ntt::gpu
