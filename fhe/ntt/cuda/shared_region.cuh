// Body of the shared-memory region kernel: the trailing S = 8 or 6 stages of
// a transform (forward stages logN-8+skip .. logN-1, skip = 8 - S) on
// contiguous 256-word tiles. Sixteen threads own a tile; each holds 16
// words in registers for two rounds of 4 stages: columns (words t + 16k,
// local stages 0-3) and rows (words 16t + k, local stages 4-7), exchanging
// through shared memory once. Tile loads and stores on the row side go
// through shared memory as coalesced 16-byte pairs. The kernel calls the
// three phases of its direction with a barrier between them; the host
// emulation test calls them thread by thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/memory_access.cuh"
#include "fhe/ntt/cuda/register_stages.cuh"
#include "fhe/ntt/cuda/row_arith.cuh"

namespace fhe::ntt::gpu {

// Calls f.template operator()<Skip, Consecutive>() for a region of
// `stage_count` stages: 8 (Skip 0) or 6 (Skip 2, radix8_compact), loading
// its twiddles at constant offsets when they lie side by side
// (StageTwiddleAddress::consecutive). The one place that maps a region to
// its kernel instantiation.
template <typename F>
decltype(auto) with_region_variant(std::uint32_t stage_count, bool consecutive, F&& f) {
  if (stage_count != static_cast<std::uint32_t>(kTileBits)) return f.template operator()<2, false>();
  return consecutive ? f.template operator()<0, true>() : f.template operator()<0, false>();
}

// Which tile and lane a thread of a block works on.
struct TileThread {
  bool valid;                   // false past the last tile of the launch
  std::uint32_t global_tile;    // tile index over all rows of the launch
  std::uint32_t data_row;       // row of the launch's data
  std::uint32_t tile;           // tile index inside its row
  std::uint32_t lane;           // 0..15 (0..31 in the split region)
  std::uint32_t tile_in_block;  // its slot in the block's shared memory
};

// The data tile where a block's tiles start. A batch (row_count > batch_rows:
// a key switch's digits, a ciphertext's parts) is visited plan row by plan
// row: blocks run in index order, so the copies of one plan row go back to
// back and its twiddle row (as many bytes as two data rows) comes from L2
// after the first. Only when blocks lie inside one row; otherwise in order.
template <typename Word>
FHE_HD std::uint32_t block_first_tile(const PassArgs<Word>& a, std::uint32_t block_index,
                                      std::uint32_t tiles_per_block) {
  const std::uint32_t tiles_per_row_log = a.log_n - kTileBits;
  const std::uint32_t in_order = block_index * tiles_per_block;
  if (a.batch_count.value == 1 || tiles_per_block > (1u << tiles_per_row_log)) return in_order;
  const std::uint32_t blocks_per_row_log = tiles_per_row_log - log2_of_power_of_two(tiles_per_block);
  const std::uint32_t visit = block_index >> blocks_per_row_log;
  const std::uint32_t row_in_batch = a.batch_count.quotient(visit);
  const std::uint32_t copy = visit - row_in_batch * a.batch_count.value;
  const std::uint32_t data_row = copy * a.batch_rows.value + row_in_batch;
  return (data_row << tiles_per_row_log) + (block_index & ((1u << blocks_per_row_log) - 1u)) * tiles_per_block;
}

// Whether a block's tiles all lie in one skipped row (PassArgs::skip_starts):
// then it has nothing to do. launch_shape keeps a skipping launch's blocks
// inside one row; a block spanning rows would run whole.
template <typename Word>
FHE_HD bool block_skipped(const PassArgs<Word>& a, std::uint32_t block_index, std::uint32_t tiles_per_block) {
  const std::uint32_t tiles_per_row_log = a.log_n - kTileBits;
  if (a.skip_starts == nullptr || tiles_per_block > (1u << tiles_per_row_log)) return false;
  return skipped_row(a, block_first_tile(a, block_index, tiles_per_block) >> tiles_per_row_log);
}

// lane < threads_per_tile: 16, or 32 for the split region (split_region.cuh).
template <typename Word>
FHE_HD TileThread locate_tile_thread(const PassArgs<Word>& a, std::uint32_t block_index,
                                     std::uint32_t tiles_per_block, std::uint32_t thread,
                                     std::uint32_t threads_per_tile = kThreadsPerTile) {
  TileThread th;
  const std::uint32_t tiles_per_row_log = a.log_n - kTileBits;
  th.tile_in_block = thread / threads_per_tile;
  th.lane = thread % threads_per_tile;
  th.global_tile = block_first_tile(a, block_index, tiles_per_block) + th.tile_in_block;
  th.valid = th.global_tile < (a.row_count << tiles_per_row_log);
  th.data_row = th.global_tile >> tiles_per_row_log;
  th.tile = th.global_tile & ((1u << tiles_per_row_log) - 1u);
  return th;
}

// Four local stages on 16 register words: stages FirstLocal .. FirstLocal+3
// of the tile, where word k of the thread sits at position k of a 16-word
// sub-block whose group index at local stage FirstLocal is `block_group`.
// Stages before the region's first (local index < Skip) belong to earlier
// passes; Skip is a template argument so no stage hides behind a branch.
// Consecutive: the pass's twiddle groups lie side by side (kernel_params.h).
template <int FirstLocal, int Skip, bool Consecutive, typename Word, typename Arith>
FHE_HD void load_round_twiddles(StageTwiddles<Word, 4>& tw, const PassArgs<Word>& a,
                                const TwiddlePair<Word>* twiddles, std::uint32_t block_group, const Arith& ar) {
  constexpr int kRoundSkip = Skip > FirstLocal ? Skip - FirstLocal : 0;
  load_stage_twiddles<4, kRoundSkip, Consecutive>(tw, ar, twiddles, [&](int r, int group) {
    return twiddle_index(a.address, FirstLocal + r, (block_group << r) + group);
  });
}

// The inverse's last butterfly (forward stage 0) carries the N^-1 scaling:
// in the region when it is the whole transform.
template <typename Word>
FHE_HD bool region_has_stage0(const PassArgs<Word>& a) {
  return a.log_n == static_cast<std::uint32_t>(kTileBits);
}

template <bool Forward, int FirstLocal, int Skip, typename Word, typename Arith>
FHE_HD void tile_round(Word (&v)[1][kWordsPerThread], const StageTwiddles<Word, 4>& tw,
                       const PassArgs<Word>& a, const RowConstants<Word>& c, const Arith& ar) {
  constexpr int kRoundSkip = Skip > FirstLocal ? Skip - FirstLocal : 0;
  for_each_stage<4, Forward>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if constexpr (r >= kRoundSkip) {
      if (!Forward && FirstLocal + r == 0 && region_has_stage0(a)) {
        register_stage0_scaled<4>(v, ar, c);
      } else {
        register_stage<Forward, 4, r, 1, round_reduces_sums(r, kRoundSkip, 4)>(
            v, ar, [&](int group) { return tw[(1 << r) - 1 + group]; });
      }
    }
  });
}

// The thread's tile in the launch's data.
template <typename Word>
FHE_HD std::uint64_t* tile_data(const PassArgs<Word>& a, const TileThread& th) {
  return a.data + static_cast<std::size_t>(th.global_tile) * kTileWords;
}

// The thread's tile of the words the launch reads (input_at).
template <typename Word>
FHE_HD const std::uint64_t* tile_input(const PassArgs<Word>& a, const TileThread& th) {
  return input_at(a, static_cast<std::size_t>(th.global_tile) * kTileWords);
}

// A tile's 256 stored words are 16 lines of 128 bytes, one a lane. Once
// every lane of the tile has loaded its words (a warp or block barrier
// after forward_columns), lane l may drop line l from L2 where the tile is
// scratch read for the last time (discard_line_from_l2).
static_assert(kThreadsPerTile * kWordsPerL2Line == kTileWords, "one line a lane");
FHE_HD void discard_tile_line(const std::uint64_t* tile, std::uint32_t lane) {
  discard_line_from_l2(tile + kWordsPerL2Line * static_cast<std::size_t>(lane));
}

template <typename Word>
FHE_HD const TwiddlePair<Word>* row_twiddles(const PassArgs<Word>& a, const TileThread& th) {
  return a.twiddles + static_cast<std::size_t>(plan_row_of(a, th.data_row)) * a.table_stride;
}

// Forward phase 1: columns from global memory (8-byte loads, coalesced across
// the 16 lanes), local stages 0-3, into shared memory. FromShared: the
// tile is in shared memory already, as stored (the pass before the region
// ran in the same block, pass_region.cuh).
// The phases' `_at` forms run a tile the caller chose (the evaluator's fused
// ModUp and key inner product); the others locate it from the block.
template <typename Word, int Skip, bool Consecutive, bool FromShared = false>
FHE_HD void forward_columns_at(const PassArgs<Word>& a, Word* shared, const TileThread& th) {
  const std::uint64_t* tile = tile_data(a, th);
  const RowConstants<Word> c = a.constants[plan_row_of(a, th.data_row)];
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, 4> tw;
    load_round_twiddles<0, Skip, Consecutive>(tw, a, row_twiddles(a, th), th.tile, ar);
    Word* own = shared + th.tile_in_block * kPaddedTileWords;
    if constexpr (!FromShared) wait_for_previous_kernel();  // the data is the previous pass's output
    Word v[1][kWordsPerThread];
#pragma unroll
    for (int k = 0; k < kWordsPerThread; ++k) {
      v[0][k] = ar.loaded(FromShared ? own[padded_column_word(th.lane, k)] : tile[th.lane + 16 * k]);
    }
    tile_round<true, 0, Skip>(v, tw, a, c, ar);
#pragma unroll
    for (int k = 0; k < kWordsPerThread; ++k) own[padded_column_word(th.lane, k)] = v[0][k];
  });
}

template <typename Word, int Skip, bool Consecutive, bool FromShared = false>
FHE_HD void forward_columns(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                            std::uint32_t tiles_per_block, std::uint32_t thread) {
  const TileThread th = locate_tile_thread(a, block_index, tiles_per_block, thread);
  if (th.valid) forward_columns_at<Word, Skip, Consecutive, FromShared>(a, shared, th);
}

// Phase 2 of both directions: rows in shared memory, local stages 4-7
// (forward, then the final reduction to [0, q)) or 7-4 (inverse, on the
// words copy_tiles brought in as stored). KeepFp64: a forward's rows of the
// double-precision butterflies leave their words unreduced, as doubles, for
// a caller that goes on in double precision (the scale-down finish,
// evaluator/cuda/region_scale_down.cuh).
template <bool Forward, typename Word, int Skip, bool Consecutive, bool KeepFp64 = false>
FHE_HD void tile_rows_at(const PassArgs<Word>& a, Word* shared, const TileThread& th) {
  const RowConstants<Word> c = a.constants[plan_row_of(a, th.data_row)];
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, 4> tw;
    load_round_twiddles<4, Skip, Consecutive>(tw, a, row_twiddles(a, th), th.tile * 16 + th.lane, ar);
    Word* own = shared + th.tile_in_block * kPaddedTileWords;
    Word v[1][kWordsPerThread];
#pragma unroll
    for (int k = 0; k < kWordsPerThread; ++k) {
      const Word word = own[padded_row_word(th.lane, k)];
      v[0][k] = Forward ? word : ar.loaded(word);
    }
    tile_round<Forward, 4, Skip>(v, tw, a, c, ar);
    constexpr bool kReduce = Forward && !(KeepFp64 && std::is_same_v<std::decay_t<decltype(ar)>, Fp64Arith>);
#pragma unroll
    for (int k = 0; k < kWordsPerThread; ++k) own[padded_row_word(th.lane, k)] = kReduce ? ar.output(v[0][k]) : v[0][k];
  });
}

template <bool Forward, typename Word, int Skip, bool Consecutive, bool KeepFp64 = false>
FHE_HD void tile_rows(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                      std::uint32_t tiles_per_block, std::uint32_t thread) {
  const TileThread th = locate_tile_thread(a, block_index, tiles_per_block, thread);
  if (th.valid) tile_rows_at<Forward, Word, Skip, Consecutive, KeepFp64>(a, shared, th);
}

// Calls pair(p, offset, first, second) for pairs p = First .. First+Count-1
// of the thread's share of the block's tiles, two neighbouring words at a
// time: `offset` is the first word's index in the launch's data (data row
// x N + position), `first` and `second` the two words in shared memory.
// Across a warp the offsets are consecutive, so 16-byte global accesses at
// them coalesce.
template <typename Word, int First = 0, int Count = kWordsPerThread / 2, typename Pair>
FHE_HD void for_each_tile_pair(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                               std::uint32_t tiles_per_block, std::uint32_t thread, Pair&& pair) {
  const std::uint32_t threads = tiles_per_block * kThreadsPerTile;
  const std::uint32_t total_tiles = a.row_count << (a.log_n - kTileBits);
  const std::uint32_t first_tile = block_first_tile(a, block_index, tiles_per_block);
#pragma unroll
  for (int p = First; p < First + Count; ++p) {
    const std::uint32_t word = 2 * (thread + p * threads);
    const std::uint32_t tile_in_block = word >> kTileBits;
    if (first_tile + tile_in_block >= total_tiles) continue;
    Word* own = shared + tile_in_block * kPaddedTileWords;
    const std::uint32_t within = word & (kTileWords - 1);
    pair(p, static_cast<std::size_t>(first_tile) * kTileWords + word, own[padded(within)], own[padded(within + 1)]);
  }
}

// Moves the block's tiles between shared and global memory as coalesced
// 16-byte pairs (forward phase 3 stores, inverse phase 1 loads, from
// `source` when the inverse runs out of place). The loads are all issued
// before the first shared store: one pair at a time, each store waited for
// its load and, in order, the next load for that store, eight round trips
// to DRAM one after another (the stores' shared reads take far less).
template <typename Word, bool Store>
FHE_HD void copy_tiles(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                       std::uint32_t tiles_per_block, std::uint32_t thread) {
  if constexpr (Store) {
    for_each_tile_pair(a, shared, block_index, tiles_per_block, thread,
                       [&](int, std::size_t offset, Word& first, Word& second) {
                         store_two(a.data + offset, first, second);
                       });
  } else {
    wait_for_previous_kernel();  // the data is the previous pass's output
    std::uint64_t x[kWordsPerThread / 2], y[kWordsPerThread / 2];
    for_each_tile_pair(a, shared, block_index, tiles_per_block, thread,
                       [&](int p, std::size_t offset, Word&, Word&) { load_two(input_at(a, offset), x[p], y[p]); });
    for_each_tile_pair(a, shared, block_index, tiles_per_block, thread,
                       [&](int p, std::size_t, Word& first, Word& second) {
                         first = static_cast<Word>(x[p]);
                         second = static_cast<Word>(y[p]);
                       });
  }
}

// Inverse phase 3: columns, local stages 3-0, stored straight to global
// memory, or ToShared back where they came from (the pass after the region
// runs in the same block, pass_region.cuh).
template <typename Word, int Skip, bool Consecutive, bool ToShared = false>
FHE_HD void inverse_columns(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                            std::uint32_t tiles_per_block, std::uint32_t thread) {
  const TileThread th = locate_tile_thread(a, block_index, tiles_per_block, thread);
  if (!th.valid) return;
  const RowConstants<Word> c = a.constants[plan_row_of(a, th.data_row)];
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, 4> tw;
    load_round_twiddles<0, Skip, Consecutive>(tw, a, row_twiddles(a, th), th.tile, ar);
    Word* own = shared + th.tile_in_block * kPaddedTileWords;
    Word v[1][kWordsPerThread];
#pragma unroll
    for (int k = 0; k < kWordsPerThread; ++k) v[0][k] = own[padded_column_word(th.lane, k)];
    tile_round<false, 0, Skip>(v, tw, a, c, ar);
    std::uint64_t* tile = tile_data(a, th);
    const bool final = region_has_stage0(a);
#pragma unroll
    for (int k = 0; k < kWordsPerThread; ++k) {
      const std::uint64_t word = ar.stored(v[0][k], final);
      if constexpr (ToShared) {
        own[padded_column_word(th.lane, k)] = static_cast<Word>(word);
      } else {
        tile[th.lane + 16 * k] = word;
      }
    }
  });
}

}  // namespace fhe::ntt::gpu
