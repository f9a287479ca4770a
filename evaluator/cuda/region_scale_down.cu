// The fused region + RnsScaleDown finish (region_scale_down.h).
#include "evaluator/cuda/region_scale_down.h"

#include <stdexcept>
#include <string>

#include "evaluator/cuda/region_scale_down.cuh"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/ntt/cuda/kernels.h"

namespace fhe::cuda {
namespace {

using ntt::gpu::kThreadsPerTile;
using ntt::gpu::kTileBits;

// The NTT region kernel's first two phases, then the finish instead of the
// store; the register cap of the NTT's throughput region kernel. G > 0:
// the global pass before the region first, on blocks of 2^G tiles
// (pass_region.cuh), whose words it loads for the region's columns.
template <typename Word, int Skip, bool Consecutive, int G>
__global__ void __launch_bounds__(ntt::gpu::kMaxBlockThreads, ntt::gpu::kThroughputMinBlocksPerSm)
    region_scale_down_kernel(const __grid_constant__ RegionScaleDownArgs<Word> f) {
  ntt::gpu::allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t tiles_per_block = blockDim.x / kThreadsPerTile;
  // In the NTT region's order, so it starts where the pass before it ended.
  const std::uint32_t block = ntt::gpu::visit_index(f.region, blockIdx.x, gridDim.x);
  const ntt::gpu::TileThread th = ntt::gpu::locate_tile_thread(f.region, block, tiles_per_block, threadIdx.x);
  if constexpr (G > 0) {
    ntt::gpu::pass_in_region_block<Word, G, true>(
        f.pass, shared, ntt::gpu::block_first_tile(f.region, block, tiles_per_block), threadIdx.x);
    __syncthreads();
  }
  if (th.valid) ntt::gpu::forward_columns_at<Word, Skip, Consecutive, (G > 0)>(f.region, shared, th);
  __syncthreads();
  if (th.valid) {
    // Scratch read for the last time: dropped from L2, not written back.
    ntt::gpu::discard_tile_line(ntt::gpu::tile_data(f.region, th), th.lane);
    // Rows of the double-precision butterflies go on in doubles (finish_word).
    ntt::gpu::tile_rows_at<true, Word, Skip, Consecutive, true>(f.region, shared, th);
  }
  __syncthreads();
  scale_down_tiles<Word>(f, shared, block, tiles_per_block, threadIdx.x);
  if (!f.any_x_scratch) return;
  __syncthreads();  // every thread's x words of the block's tiles are read
  if (!th.valid) return;
  const auto [item, r] = item_row(f.region, th.data_row);
  if (!f.items[item].x_scratch) return;
  const std::size_t row_tile = (static_cast<std::size_t>(r) << f.region.log_n) +
                               (static_cast<std::size_t>(th.tile) << kTileBits);
  ntt::gpu::discard_tile_line(f.items[item].x + row_tile, th.lane);
}

template <typename Word>
using ScaleDownKernel = void (*)(RegionScaleDownArgs<Word>);

// The kernel for the region's variant and the pass left to it (stage_count
// 0: none).
template <typename Word>
ScaleDownKernel<Word> select_kernel(const ntt::gpu::PassArgs<Word>& region, const ntt::gpu::PassArgs<Word>& pass) {
  const std::uint32_t pass_stages = pass.stage_count;
  return ntt::gpu::with_region_variant(
      region.stage_count, region.address.consecutive, [&]<int Skip, bool Consecutive>() -> ScaleDownKernel<Word> {
        if constexpr (Skip == 0) {
          switch (pass_stages) {
            case 1: return region_scale_down_kernel<Word, 0, Consecutive, 1>;
            case 2: return region_scale_down_kernel<Word, 0, Consecutive, 2>;
            case 3: return region_scale_down_kernel<Word, 0, Consecutive, 3>;
            case 4: return region_scale_down_kernel<Word, 0, Consecutive, 4>;
          }
        }
        if (pass_stages != 0) throw std::logic_error("region_scale_down: a pass left before a 6-stage region");
        return region_scale_down_kernel<Word, Skip, Consecutive, 0>;
      });
}

template <typename Word>
void launch_for_word(const ntt::gpu::PassArgs<Word>& region, const ntt::gpu::PassArgs<Word>& pass,
                     unsigned tiles_per_block, const DeviceScaleDown& scale_down, const ScaleDownItem* items,
                     int item_count, cudaStream_t stream) {
  RegionScaleDownArgs<Word> f{region, scale_down, {}};
  for (int i = 0; i < item_count; ++i) {
    f.items[i] = items[i];
    f.any_x_scratch = f.any_x_scratch || items[i].x_scratch;
  }
  f.pass = pass;
  const std::size_t tiles = std::size_t{region.row_count} << (region.log_n - kTileBits);
  ntt::gpu::LaunchShape shape;
  shape.block = tiles_per_block * kThreadsPerTile;
  shape.grid_x = static_cast<unsigned>((tiles + tiles_per_block - 1) / tiles_per_block);
  shape.grid_y = 1;
  shape.dynamic_shared_bytes = std::size_t{tiles_per_block} * ntt::gpu::kPaddedTileWords * sizeof(Word);
  // Overlapped like the NTT passes: the blocks load their twiddles while the
  // previous pass drains.
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(select_kernel<Word>(region, pass), shape, stream, f));
}

}  // namespace

void launch_region_scale_down(const ntt::gpu::ForwardRegion& region, const DeviceScaleDown& scale_down,
                              const ScaleDownItem* items, int item_count, cudaStream_t stream) {
  const auto& wide = region.wide;
  const auto& narrow = region.narrow;
  const std::uint32_t rows = region.is_wide ? wide.batch_rows.value : narrow.batch_rows.value;
  const std::uint32_t blocks = region.is_wide ? wide.batch_count.value : narrow.batch_count.value;
  if (item_count < 1 || item_count > kMaxScaleDownItems || static_cast<std::uint32_t>(item_count) != blocks ||
      rows != static_cast<std::uint32_t>(scale_down.kept_rows) || region.tiles_per_block == 0) {
    throw InvalidArgument("launch_region_scale_down: " + std::to_string(item_count) + " items (1 to " +
                          std::to_string(kMaxScaleDownItems) + ", one per region block: " + std::to_string(blocks) +
                          "), region rows " + std::to_string(rows) + " against " +
                          std::to_string(scale_down.kept_rows) + " kept rows");
  }
  if (region.is_wide) {
    launch_for_word(wide, region.pass_wide, region.tiles_per_block, scale_down, items, item_count, stream);
  } else {
    launch_for_word(narrow, region.pass_narrow, region.tiles_per_block, scale_down, items, item_count, stream);
  }
}

}  // namespace fhe::cuda
