// Which kernel each pass of a schedule runs, with its twiddle addressing,
// and the launch shape for a number of rows. Built once per plan (the
// shapes per call, from the row count alone, so forward() stays
// capturable). Plain C++, shared by the CUDA plan, `describe` and the host
// emulation test.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "fhe/core/error.h"
#include "fhe/ntt/backend.h"
#include "fhe/ntt/cuda/device_tables.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::ntt::gpu {

enum class KernelKind { indexed_stage, global_pass, shared_region };

struct PassLaunch {
  KernelKind kernel = KernelKind::global_pass;
  PassKind pass_kind = PassKind::global_group;
  int first_stage = 0;
  int stage_count = 0;
  // Global pass: stages first_stage + r; shared region: stages logN - 8 + r.
  StageTwiddleAddress address{};
};

// The passes of `schedule` in execution order (reversed for the inverse).
// Throws InvalidArgument when a pass does not fit the kernels.
inline std::vector<PassLaunch> make_pass_launches(const BackendInfo& backend,
                                                  const NttSchedule& schedule, bool forward) {
  const int log_n = schedule.log_n;
  std::vector<PassLaunch> launches;
  for (const NttPass& pass : schedule.passes) {
    PassLaunch launch;
    launch.pass_kind = pass.kind;
    launch.first_stage = pass.first_stage;
    launch.stage_count = pass.stage_count;
    switch (pass.kind) {
      case PassKind::global_stage:
        launch.kernel = KernelKind::indexed_stage;
        break;
      case PassKind::global_group:
      case PassKind::global_digit:
        launch.kernel = KernelKind::global_pass;
        if (pass.stage_count < 1 || pass.stage_count > kMaxGlobalPassStages ||
            log_n - pass.first_stage - pass.stage_count < 1) {
          throw InvalidArgument("backend " + std::string(backend.name) + ", logN " +
                                std::to_string(log_n) + ": a global pass of " +
                                std::to_string(pass.stage_count) +
                                " stages does not fit the CUDA kernels");
        }
        launch.address = make_stage_address(backend, log_n, pass.first_stage, pass.stage_count);
        if (!launch.address.consecutive) {  // the global pass kernel assumes it
          throw InvalidArgument("backend " + std::string(backend.name) + ", logN " + std::to_string(log_n) +
                                ": a global pass whose twiddles are not side by side");
        }
        break;
      case PassKind::shared_region:
        launch.kernel = KernelKind::shared_region;
        if (log_n < kTileBits || !shared_region_supported(pass.stage_count) ||
            pass.first_stage + pass.stage_count != log_n) {
          throw InvalidArgument("backend " + std::string(backend.name) +
                                ": the CUDA shared-memory kernel needs logN >= 8 and a region of "
                                "6 or 8 stages (got logN " + std::to_string(log_n) + ", " +
                                std::to_string(pass.stage_count) + " stages)");
        }
        launch.address = make_stage_address(backend, log_n, log_n - kTileBits, kTileBits);
        break;
    }
    launches.push_back(launch);
  }
  if (!forward) std::reverse(launches.begin(), launches.end());
  return launches;
}

// The arguments of a fused pass over `batch` blocks of the plan rows `rows`
// (forward_batch's layout), with one direction's twiddle rows; shared by the
// CUDA plan and the host emulator, so both launch with the same values.
template <typename Word>
PassArgs<Word> make_pass_args(const PassLaunch& launch, std::uint64_t* data, const TwiddlePair<Word>* twiddles,
                              const RowConstants<Word>* constants, std::uint32_t table_stride, RowRange rows,
                              std::size_t batch, int log_n, const std::uint32_t* skip_starts = nullptr) {
  // The kernels divide row and tile indices with FastDivisor.
  if ((rows.count * batch) << std::max(log_n - kTileBits, 0) >= (std::size_t{1} << FastDivisor::kNumeratorBits)) {
    throw InvalidArgument("an NTT launch of " + std::to_string(rows.count * batch) + " rows at logN " +
                          std::to_string(log_n) + " exceeds the kernels' index range");
  }
  return {data,
          twiddles,
          constants,
          static_cast<std::uint32_t>(rows.first),
          FastDivisor(static_cast<std::uint32_t>(rows.count)),
          FastDivisor(static_cast<std::uint32_t>(batch)),
          static_cast<std::uint32_t>(rows.count * batch),
          static_cast<std::uint32_t>(log_n),
          static_cast<std::uint32_t>(launch.first_stage),
          static_cast<std::uint32_t>(launch.stage_count),
          table_stride,
          launch.address,
          skip_starts};
}

// The arguments of one radix2_indexed stage over `batch` blocks of `rows`,
// from the index table of make_index_table; shared like make_pass_args.
template <typename Word>
IndexedStageArgs<Word> make_indexed_stage_args(const PassLaunch& launch, std::uint64_t* data,
                                               const TwiddlePair<Word>* twiddles, const RowConstants<Word>* constants,
                                               std::uint32_t table_stride, const IndexEntry* index, RowRange rows,
                                               int log_n, const std::uint32_t* skip_starts = nullptr) {
  return {data,
          twiddles,
          constants,
          index + static_cast<std::size_t>(launch.first_stage) * (std::size_t{1} << (log_n - 1)),
          static_cast<std::uint32_t>(rows.first),
          FastDivisor(static_cast<std::uint32_t>(rows.count)),
          static_cast<std::uint32_t>(log_n),
          static_cast<std::uint32_t>(launch.first_stage),
          table_stride,
          skip_starts};
}

struct LaunchShape {
  unsigned grid_x = 0, grid_y = 0, block = 0;
  std::size_t dynamic_shared_bytes = 0;
  unsigned tiles_per_block = 0;  // shared region only
  // More threads than kMinBlocksPerSm blocks per SM hold: the throughput
  // kernels (kernel_params.h) run it; otherwise the latency kernels.
  bool throughput = false;
  // Fewer warps than kSplitBelowWarpsPerSm an SM: the split kernels run it.
  bool split = false;
};

inline bool below_split_warps(std::size_t threads, int sm_count) {
  return threads < static_cast<std::size_t>(kSplitBelowWarpsPerSm) * 32 * std::max(sm_count, 1);
}

// Blocks of `per_block` units (tiles or thread items) halve, down to
// `floor`, while the grid would leave SMs idle.
inline unsigned shrink_for_idle_sms(unsigned per_block, unsigned floor, std::size_t units, std::size_t rows,
                                    int sm_count) {
  const std::size_t wanted_blocks = 2 * static_cast<std::size_t>(std::max(sm_count, 1));
  while (per_block > floor && ((units + per_block - 1) / per_block) * rows < wanted_blocks) per_block /= 2;
  return per_block;
}

// Whether `threads` exceed what the latency kernels keep resident
// (kMinBlocksPerSm blocks of kMaxBlockThreads per SM): then a third block
// per SM has work and the throughput kernels run the launch.
inline bool fills_latency_occupancy(std::size_t threads, int sm_count) {
  return threads > static_cast<std::size_t>(kMinBlocksPerSm) * kMaxBlockThreads * std::max(sm_count, 1);
}

// Tiles a shared-region block holds at most: 4 (64 threads), not the 16 a
// 256-thread block would. The resident warps an SM stay the same (the
// register cap sets them), but each barrier waits on 2 warps instead of 8.
// On the H200 (docs/performance.md, session 27): 39-row transforms -3 %
// forward and -6 % inverse, rotate_many[4] -1.7 %, a level-17 key switch
// -1.5 %; 8 tiles gained slightly less.
inline constexpr unsigned kRegionTilesPerBlock = 4;

// Whether launch `index` of a transform (its passes in order) visits its
// rows from the first. When the launch's words exceed half the L2, only the
// rows a launch touched last are still in L2 as it ends; the next launch
// starting there reads them from L2 instead of DRAM, so such transforms
// alternate the order launch by launch (the first keeps last_first, where
// the ModUp and ModDown conversions, which write their slices in order,
// ended). Smaller launches stay in L2 whole and keep last_first, which
// starts the wide rows first instead of leaving them as the tail.
inline bool rows_ascending(std::size_t index, std::size_t data_bytes, std::size_t l2_bytes) {
  return index % 2 == 1 && 2 * data_bytes > l2_bytes;
}

// Grids cover rows x items. Blocks shrink (down to one warp) while the grid
// would leave SMs idle, so a single row still spreads over the chip; a
// launch with few warps an SM (kSplitBelowWarpsPerSm) takes the split kernels,
// unless `allow_split` is false (a caller's fused region keeps the 16-thread
// tiles). A launch that skips rows (`skips_rows`: PassArgs::skip_starts)
// keeps each region block inside one row, so a block in a skipped row is
// skipped whole (block_skipped) and none touches a skipped row's words.
inline LaunchShape launch_shape(const PassLaunch& launch, int log_n, std::size_t rows,
                                int sm_count, std::size_t word_bytes, bool allow_split = true,
                                bool skips_rows = false) {
  LaunchShape shape;
  if (launch.kernel == KernelKind::shared_region) {
    const std::size_t tiles = rows << (log_n - kTileBits);
    unsigned per_block = shrink_for_idle_sms(kRegionTilesPerBlock, 2, tiles, 1, sm_count);
    shape.throughput = fills_latency_occupancy(((tiles + per_block - 1) / per_block) * per_block * kThreadsPerTile,
                                               sm_count);
    shape.split = allow_split && below_split_warps(tiles * kThreadsPerTile, sm_count);
    const unsigned threads_per_tile = shape.split ? kSplitThreadsPerTile : kThreadsPerTile;
    if (shape.split) per_block = shrink_for_idle_sms(kMaxBlockThreads / kSplitThreadsPerTile, 1, tiles, 1, sm_count);
    if (skips_rows) per_block = std::min(per_block, 1u << (log_n - kTileBits));
    shape.tiles_per_block = per_block;
    shape.block = per_block * threads_per_tile;
    shape.grid_x = static_cast<unsigned>((tiles + per_block - 1) / per_block);
    shape.grid_y = 1;
    shape.dynamic_shared_bytes = per_block * kPaddedTileWords * word_bytes;
    return shape;
  }
  if (launch.kernel == KernelKind::indexed_stage) {
    const std::size_t items = std::size_t{1} << (log_n - 1);
    shape.block = shrink_for_idle_sms(static_cast<unsigned>(std::min<std::size_t>(kMaxBlockThreads, items)), 32,
                                      items, rows, sm_count);
    shape.grid_x = static_cast<unsigned>((items + shape.block - 1) / shape.block);
    shape.grid_y = static_cast<unsigned>(rows);
    shape.throughput = fills_latency_occupancy(std::size_t{shape.grid_x} * shape.grid_y * shape.block, sm_count);
    return shape;
  }
  const GlobalPassLayout normal = global_pass_layout(launch.stage_count, word_bytes, false);
  const std::size_t normal_threads = (std::size_t{1} << global_pass_items_log(log_n, launch.stage_count, normal)) * rows;
  shape.throughput = fills_latency_occupancy(normal_threads, sm_count);
  shape.split = allow_split && below_split_warps(normal_threads, sm_count);
  const GlobalPassLayout layout = global_pass_layout(launch.stage_count, word_bytes, shape.split);
  const std::size_t items = std::size_t{1} << global_pass_items_log(log_n, launch.stage_count, layout);
  shape.block = shrink_for_idle_sms(static_cast<unsigned>(std::min<std::size_t>(kMaxBlockThreads, items)), 32,
                                    items, rows, sm_count);
  shape.grid_x = static_cast<unsigned>((items + shape.block - 1) / shape.block);
  shape.grid_y = static_cast<unsigned>(rows);
  // The paired pass exchanges a quarter of an offset's words per thread.
  if (layout.paired) shape.dynamic_shared_bytes = (std::size_t{shape.block} << (launch.stage_count - 2)) * word_bytes;
  return shape;
}

// The pass-region kernel's shape (pass_region.cuh): a block per pass block
// of 2^G tiles, 16 threads a tile.
inline LaunchShape pass_region_shape(int pass_stages, int log_n, std::size_t rows, std::size_t word_bytes) {
  LaunchShape shape;
  shape.tiles_per_block = 1u << pass_stages;
  shape.block = shape.tiles_per_block * kThreadsPerTile;
  shape.grid_x = static_cast<unsigned>((rows << (log_n - kTileBits)) / shape.tiles_per_block);
  shape.grid_y = 1;
  shape.dynamic_shared_bytes = shape.tiles_per_block * kPaddedTileWords * word_bytes;
  shape.throughput = true;
  return shape;
}

// Whether a launch of `shape` at the throughput cap has at least one wave of
// blocks: as many as kThroughputMinBlocksPerSm 256-thread blocks an SM.
inline bool fills_one_wave(const LaunchShape& shape, int sm_count) {
  const std::size_t resident_per_sm = kThroughputMinBlocksPerSm * kMaxBlockThreads / shape.block;
  return std::size_t{shape.grid_x} * shape.grid_y >= resident_per_sm * static_cast<std::size_t>(std::max(sm_count, 1));
}

// Whether launches i and i + 1 of a direction (`launches` in execution
// order) run as one pass-region kernel: the global pass that ends where the
// region's 8 stages begin, next to the region, in a launch of at least one
// wave of pass-region blocks at the throughput cap. Below a wave every
// block runs its load, stages and store at the same time as every other,
// with nothing to overlap them: on the H200 a level-17 key switch's input
// inverse (19 rows, 0.77 of a wave of 16-tile blocks) fused cost the key
// switch 4 % (docs/performance.md, session 45). A forward's first pass
// that lifts its input (PassArgs::lift) runs alone.
inline bool runs_pass_with_region(const std::vector<PassLaunch>& launches, std::size_t i, bool forward, int log_n,
                                  std::size_t rows, int sm_count, std::size_t word_bytes, bool lifted_first) {
  if (i + 1 >= launches.size() || (forward && i == 0 && lifted_first)) return false;
  const PassLaunch& pass = launches[forward ? i : i + 1];
  const PassLaunch& region = launches[forward ? i + 1 : i];
  if (pass.kernel != KernelKind::global_pass || region.kernel != KernelKind::shared_region ||
      region.stage_count != kTileBits || pass.first_stage + pass.stage_count != log_n - kTileBits) {
    return false;
  }
  return fills_one_wave(pass_region_shape(pass.stage_count, log_n, rows, word_bytes), sm_count);
}

// The pass-pair kernel's shape (pass_pair.cuh): blocks of 4096 words
// along each row, 256 threads.
inline LaunchShape pass_pair_shape(int log_n, std::size_t rows, std::size_t word_bytes) {
  LaunchShape shape;
  shape.block = kPairBlockThreads;
  shape.grid_x = 1u << (log_n - static_cast<int>(kPairBlockWordsLog));
  shape.grid_y = static_cast<unsigned>(rows);
  shape.dynamic_shared_bytes = kPairBlockSharedWords * word_bytes;
  shape.throughput = true;
  return shape;
}

// Whether launches i and i + 1 of a direction's first `launch_count` (in
// execution order) can run as one pass-pair kernel: two global passes of
// the same 2-4 stages, adjacent in stage order, whose 4096-word blocks fit
// in a block of the lower pass (logN - f >= 12), in a launch of at least
// one wave (as runs_pass_with_region). A pass of 2 or 3 stages that the
// region takes (runs_pass_with_region) stays with it: on the H200 group4's
// inverse at 39 rows was 2.4 % slower with its region alone and its four
// passes paired (docs/performance.md, session 47). A lifted first pass
// pairs too (the pair kernel lifts as it loads; the rescale).
inline bool runs_pass_pair(const std::vector<PassLaunch>& launches, std::size_t i, std::size_t launch_count,
                           bool forward, int log_n, std::size_t rows, int sm_count, std::size_t word_bytes) {
  launch_count = std::min(launch_count, launches.size());
  if (i + 1 >= launch_count) return false;
  const PassLaunch& lower = launches[forward ? i : i + 1];
  const PassLaunch& upper = launches[forward ? i + 1 : i];
  if (lower.kernel != KernelKind::global_pass || upper.kernel != KernelKind::global_pass ||
      lower.stage_count != upper.stage_count || lower.stage_count < 2 ||
      upper.first_stage != lower.first_stage + lower.stage_count ||
      log_n - lower.first_stage < static_cast<int>(kPairBlockWordsLog)) {
    return false;
  }
  // The pass the region would take is never the transform's first (no lift).
  const bool region_takes_a_pass =
      forward ? i + 2 < launch_count &&
                    runs_pass_with_region(launches, i + 1, forward, log_n, rows, sm_count, word_bytes, false)
              : i >= 1 && runs_pass_with_region(launches, i - 1, forward, log_n, rows, sm_count, word_bytes, false);
  if (lower.stage_count < kMaxGlobalPassStages && region_takes_a_pass) return false;
  return fills_one_wave(pass_pair_shape(log_n, rows, word_bytes), sm_count);
}

// Which pass-group kernel (pass_pair.cuh) runs launches i onwards of a
// forward's first `launch_count`, as an index into kPassGroupShapes, or -1:
// global passes of the shape's stage counts, adjacent in stage order, that
// are the last of those launches, so the caller's kernel runs the region
// after them (the ModUp before the key product, the ModDown before its
// finish), in a launch of at least one wave of the pair's 4096-word
// blocks; the first may lift its input (PassArgs::lift), as a pair's.
// Elsewhere the region takes the last pass (runs_pass_with_region) and the
// others pair.
inline int pass_group_shape(const std::vector<PassLaunch>& launches, std::size_t i, std::size_t launch_count,
                            bool forward, int log_n, std::size_t rows, int sm_count, std::size_t word_bytes) {
  if (!forward || launch_count >= launches.size() || i >= launch_count ||
      log_n - launches[i].first_stage < static_cast<int>(kPairBlockWordsLog) ||
      !fills_one_wave(pass_pair_shape(log_n, rows, word_bytes), sm_count)) {
    return -1;
  }
  for (int shape = 0; shape < kPassGroupShapeCount; ++shape) {
    const PassGroupShape& g = kPassGroupShapes[shape];
    bool matches = i + g.count == launch_count;
    for (int p = 0; matches && p < g.count; ++p) {
      const PassLaunch& pass = launches[i + p];
      matches = pass.kernel == KernelKind::global_pass && pass.stage_count == g.stages[p] &&
                (p == 0 || pass.first_stage == launches[i + p - 1].first_stage + launches[i + p - 1].stage_count);
    }
    if (matches) return shape;
  }
  return -1;
}

// How launch i of a direction's first `launch_count` runs: alone, with the
// next in one pass-region kernel, with the next in one pass-pair kernel,
// or with the next ones in one pass-group kernel (pass_group_shape).
// Two 4-stage passes pair even where the region would take the second
// (group16, radix16 at logN 16: the region then runs alone): on the H200 the
// 39-row forward was 2.8 % (group16) and 4.7 % (radix16) faster, the inverse
// 2.7 % and 2.3 % (docs/performance.md, session 47).
enum class LaunchGroup { alone, pass_with_region, pass_pair, pass_group };

struct LaunchGrouping {
  LaunchGroup kind = LaunchGroup::alone;
  int group_shape = -1;  // pass_group: the index into kPassGroupShapes
};

inline LaunchGrouping launch_group(const std::vector<PassLaunch>& launches, std::size_t i, std::size_t launch_count,
                                   bool forward, int log_n, std::size_t rows, int sm_count, std::size_t word_bytes,
                                   bool lifted_first) {
  const int shape = pass_group_shape(launches, i, launch_count, forward, log_n, rows, sm_count, word_bytes);
  if (shape >= 0) return {LaunchGroup::pass_group, shape};
  if (runs_pass_pair(launches, i, launch_count, forward, log_n, rows, sm_count, word_bytes)) {
    return {LaunchGroup::pass_pair};
  }
  // The inverse's region gives its pass to a pair.
  if (!forward && runs_pass_pair(launches, i + 1, launch_count, forward, log_n, rows, sm_count, word_bytes)) {
    return {LaunchGroup::alone};
  }
  if (i + 1 < std::min(launch_count, launches.size()) &&
      runs_pass_with_region(launches, i, forward, log_n, rows, sm_count, word_bytes, lifted_first)) {
    return {LaunchGroup::pass_with_region};
  }
  return {LaunchGroup::alone};
}

// The launches a direction's first `launch_count` passes take, grouped as
// launch_group groups them.
inline std::size_t grouped_launch_count(const std::vector<PassLaunch>& launches, std::size_t launch_count,
                                        bool forward, int log_n, std::size_t rows, int sm_count,
                                        std::size_t word_bytes, bool lifted_first) {
  launch_count = std::min(launch_count, launches.size());
  std::size_t issued = 0;
  for (std::size_t i = 0; i < launch_count; ++issued) {
    const LaunchGrouping g =
        launch_group(launches, i, launch_count, forward, log_n, rows, sm_count, word_bytes, lifted_first);
    i += g.kind == LaunchGroup::pass_group ? static_cast<std::size_t>(kPassGroupShapes[g.group_shape].count)
         : g.kind == LaunchGroup::alone    ? 1
                                           : 2;
  }
  return issued;
}

// Whether a forward's first `launch_count` passes run in the same launches
// with their first pass lifting its input (PassArgs::lift) as without: the
// first is a global pass, the lift takes no pass from a pass group or the
// region's launch, and a lifted pass running alone (its kernels are
// latency-capped, global_pass_kernel.cu) is not a throughput launch. Where
// it holds, a caller may lift rows instead of converting them first (the
// ModUp's one-prime digits) at no cost to the other rows.
inline bool lift_keeps_launches(const std::vector<PassLaunch>& forward_launches, std::size_t launch_count,
                                int log_n, std::size_t rows, int sm_count, std::size_t word_bytes) {
  if (launch_count == 0 || forward_launches.empty() || forward_launches.front().kernel != KernelKind::global_pass) {
    return false;
  }
  const LaunchGrouping first =
      launch_group(forward_launches, 0, launch_count, true, log_n, rows, sm_count, word_bytes, true);
  if (first.kind == LaunchGroup::alone &&
      launch_shape(forward_launches.front(), log_n, rows, sm_count, word_bytes).throughput) {
    return false;
  }
  return grouped_launch_count(forward_launches, launch_count, true, log_n, rows, sm_count, word_bytes, true) ==
         grouped_launch_count(forward_launches, launch_count, true, log_n, rows, sm_count, word_bytes, false);
}

// A pass group's arguments (kPassGroupShapes[shape]): `first`, then next()
// for each further pass in stage order.
template <typename Word, typename Next>
PassGroupArgs<Word> pass_group_args(int shape, const PassArgs<Word>& first, Next&& next) {
  PassGroupArgs<Word> group{};
  group.pass[0] = first;
  for (int p = 1; p < kPassGroupShapes[shape].count; ++p) group.pass[p] = next();
  return group;
}

// Whether a forward whose caller's kernel runs the region (the ModDown and
// rescale finish) leaves it the pass before the region too: where the plan
// would fuse the two (runs_pass_with_region) and the launch's rows exceed
// the L2 (`l2_bytes`). Rows that fit make the round trip between the pass
// and the region through L2, which the finish's 2^G-tile blocks cost more
// than they save: on the H200 (60 MiB of L2) the rescale's 68 rows (34 MiB)
// fused were 5 % slower, the ModDown of rotate_many[4]'s eight parts (280
// rows) 2 % faster (docs/performance.md, session 45).
inline bool leaves_pass_to_region_kernel(const std::vector<PassLaunch>& forward_launches, int log_n,
                                         std::size_t rows, int sm_count, std::size_t word_bytes, bool lifted_first,
                                         std::size_t l2_bytes) {
  const std::size_t n = forward_launches.size();
  return n >= 2 && (rows << log_n) * sizeof(std::uint64_t) > l2_bytes &&
         runs_pass_with_region(forward_launches, n - 2, true, log_n, rows, sm_count, word_bytes, lifted_first);
}

}  // namespace fhe::ntt::gpu
