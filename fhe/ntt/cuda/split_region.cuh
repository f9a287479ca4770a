// Body of the split shared-memory region kernel, for launches with few
// warps an SM (kernel_params.h, kSplitBelowWarpsPerSm):
// the stages of shared_region.cuh on the same 256-word tiles, but 32
// threads a tile holding 8 words each, in three rounds of 3, 3 and 2
// stages. The round starting at local stage F holds the words whose bits
// 7-F .. 5-F vary: thread T's word i is w = hi << (8-F) | i << (5-F) | lo
// with T = hi << (5-F) | lo. So F = 0 takes words T + 32 i (stages 0-2),
// F = 3 stages 3-5, and F = 5 words 8 T + i (stages 6-7: its first
// position, stage 5, is the middle round's). Rounds trade words through
// shared memory; the first reads global memory and the last writes it,
// coalesced in both layouts. The twiddles come from the general address
// formula: these rounds are not the 4-stage rounds that
// StageTwiddleAddress::consecutive speaks of.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cuda/shared_region.cuh"

namespace fhe::ntt::gpu {

inline constexpr int kSplitRoundBits = 3;

template <int First>
FHE_HD std::uint32_t split_round_word(std::uint32_t thread_in_tile, int i) {
  constexpr int kLowBits = 5 - First;  // the tile bits below the round's
  return ((thread_in_tile >> kLowBits) << (kLowBits + kSplitRoundBits)) |
         (static_cast<std::uint32_t>(i) << kLowBits) | (thread_in_tile & ((1u << kLowBits) - 1u));
}

// Positions of a round that belong elsewhere: the region's skipped stages
// (Skip, radix8's 6-stage region) and the last round's stage 5.
template <int First, int Skip>
inline constexpr int kSplitRoundSkip = First == 5 ? 1 : (Skip > First ? Skip - First : 0);

template <int First, int Skip, typename Word, typename Arith>
FHE_HD void load_split_round_twiddles(StageTwiddles<Word, kSplitRoundBits>& tw, const PassArgs<Word>& a,
                                      const TileThread& th, const Arith& ar) {
  // The group of the thread's words at local stage First.
  const std::uint32_t block_group = (th.tile << First) + (th.lane >> (5 - First));
  load_stage_twiddles<kSplitRoundBits, kSplitRoundSkip<First, Skip>, false>(
      tw, ar, row_twiddles(a, th),
      [&](int r, int group) { return twiddle_index(a.address, First + r, (block_group << r) + group); });
}

template <bool Forward, int First, int Skip, typename Word, typename Arith>
FHE_HD void split_round(Word (&v)[1][kSplitWordsPerThread], const StageTwiddles<Word, kSplitRoundBits>& tw,
                        const PassArgs<Word>& a, const RowConstants<Word>& c, const Arith& ar) {
  constexpr int kSkip = kSplitRoundSkip<First, Skip>;
  for_each_stage<kSplitRoundBits, Forward>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if constexpr (r >= kSkip) {
      if (!Forward && First + r == 0 && region_has_stage0(a)) {
        register_stage0_scaled<kSplitRoundBits, 1>(v, ar, c);
      } else {
        register_stage<Forward, kSplitRoundBits, r, 1, round_reduces_sums(r, kSkip, kSplitRoundBits)>(
            v, ar, [&](int group) { return tw[(1 << r) - 1 + group]; });
      }
    }
  });
}

template <int First, typename Word>
FHE_HD void split_from_shared(Word (&v)[1][kSplitWordsPerThread], const Word* shared, const TileThread& th) {
  const Word* own = shared + th.tile_in_block * kPaddedTileWords;
#pragma unroll
  for (int i = 0; i < kSplitWordsPerThread; ++i) v[0][i] = own[padded(split_round_word<First>(th.lane, i))];
}

template <int First, typename Word>
FHE_HD void split_to_shared(Word* shared, const TileThread& th, const Word (&v)[1][kSplitWordsPerThread]) {
  Word* own = shared + th.tile_in_block * kPaddedTileWords;
#pragma unroll
  for (int i = 0; i < kSplitWordsPerThread; ++i) own[padded(split_round_word<First>(th.lane, i))] = v[0][i];
}

template <typename Word>
FHE_HD TileThread locate_split_thread(const PassArgs<Word>& a, std::uint32_t block_index,
                                      std::uint32_t tiles_per_block, std::uint32_t thread) {
  return locate_tile_thread(a, block_index, tiles_per_block, thread, kSplitThreadsPerTile);
}

// What every split phase starts with: the thread's place (none: it has no
// tile and returns), its row's constants and that row's arithmetic, given
// to body(th, c, ar).
template <typename Word, typename Body>
FHE_HD void for_split_thread(const PassArgs<Word>& a, std::uint32_t block_index, std::uint32_t tiles_per_block,
                             std::uint32_t thread, Body&& body) {
  const TileThread th = locate_split_thread(a, block_index, tiles_per_block, thread);
  if (!th.valid) return;
  const RowConstants<Word> c = a.constants[plan_row_of(a, th.data_row)];
  with_row_arith(c, [&](const auto& ar) { body(th, c, ar); });
}

// A round on the words the thread holds in shared memory (after a barrier).
template <bool Forward, int First, int Skip, typename Word, typename Arith>
FHE_HD void split_round_in_shared(Word (&v)[1][kSplitWordsPerThread], const PassArgs<Word>& a, const Word* shared,
                                  const TileThread& th, const RowConstants<Word>& c, const Arith& ar) {
  StageTwiddles<Word, kSplitRoundBits> tw;
  load_split_round_twiddles<First, Skip>(tw, a, th, ar);
  split_from_shared<First>(v, shared, th);
  split_round<Forward, First, Skip>(v, tw, a, c, ar);
}

// Forward phase 1: words T + 32 i from global memory, local stages 0-2.
template <typename Word, int Skip>
FHE_HD void split_forward_first(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                                std::uint32_t tiles_per_block, std::uint32_t thread) {
  for_split_thread(a, block_index, tiles_per_block, thread, [&](const TileThread& th, const RowConstants<Word>& c,
                                                                 const auto& ar) {
    StageTwiddles<Word, kSplitRoundBits> tw;
    load_split_round_twiddles<0, Skip>(tw, a, th, ar);
    wait_for_previous_kernel();  // the data is the previous pass's output
    const std::uint64_t* tile = tile_data(a, th);
    Word v[1][kSplitWordsPerThread];
#pragma unroll
    for (int i = 0; i < kSplitWordsPerThread; ++i) v[0][i] = ar.loaded(tile[split_round_word<0>(th.lane, i)]);
    split_round<true, 0, Skip>(v, tw, a, c, ar);
    split_to_shared<0>(shared, th, v);
  });
}

// Phase 2 of both directions: local stages 3-5 (forward) or 5-3 in shared memory.
template <bool Forward, typename Word>
FHE_HD void split_middle(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                         std::uint32_t tiles_per_block, std::uint32_t thread) {
  for_split_thread(a, block_index, tiles_per_block, thread, [&](const TileThread& th, const RowConstants<Word>& c,
                                                                 const auto& ar) {
    Word v[1][kSplitWordsPerThread];
    split_round_in_shared<Forward, 3, 0>(v, a, shared, th, c, ar);
    split_to_shared<3>(shared, th, v);
  });
}

// Forward phase 3: local stages 6-7, the final reduction to [0, q), words
// 8 T + i to global memory as 16-byte pairs.
template <typename Word>
FHE_HD void split_forward_last(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                               std::uint32_t tiles_per_block, std::uint32_t thread) {
  for_split_thread(a, block_index, tiles_per_block, thread, [&](const TileThread& th, const RowConstants<Word>& c,
                                                                 const auto& ar) {
    Word v[1][kSplitWordsPerThread];
    split_round_in_shared<true, 5, 0>(v, a, shared, th, c, ar);
    std::uint64_t* tile = tile_data(a, th);
#pragma unroll
    for (int i = 0; i < kSplitWordsPerThread; i += 2) {
      store_two(tile + split_round_word<5>(th.lane, i), ar.output(v[0][i]), ar.output(v[0][i + 1]));
    }
  });
}

// Inverse phase 1: words 8 T + i from global memory (`source` when the
// inverse runs out of place), local stages 7-6.
template <typename Word>
FHE_HD void split_inverse_first(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                                std::uint32_t tiles_per_block, std::uint32_t thread) {
  for_split_thread(a, block_index, tiles_per_block, thread, [&](const TileThread& th, const RowConstants<Word>& c,
                                                                 const auto& ar) {
    StageTwiddles<Word, kSplitRoundBits> tw;
    load_split_round_twiddles<5, 0>(tw, a, th, ar);
    wait_for_previous_kernel();  // the data is the previous pass's output
    const std::uint64_t* tile = tile_input(a, th);
    Word v[1][kSplitWordsPerThread];
#pragma unroll
    for (int i = 0; i < kSplitWordsPerThread; i += 2) {
      std::uint64_t x, y;
      load_two(tile + split_round_word<5>(th.lane, i), x, y);
      v[0][i] = ar.loaded(x);
      v[0][i + 1] = ar.loaded(y);
    }
    split_round<false, 5, 0>(v, tw, a, c, ar);
    split_to_shared<5>(shared, th, v);
  });
}

// Inverse phase 3: local stages 2-0 (N^-1 at stage 0 when the region holds
// it), words T + 32 i to global memory.
template <typename Word, int Skip>
FHE_HD void split_inverse_last(const PassArgs<Word>& a, Word* shared, std::uint32_t block_index,
                               std::uint32_t tiles_per_block, std::uint32_t thread) {
  for_split_thread(a, block_index, tiles_per_block, thread, [&](const TileThread& th, const RowConstants<Word>& c,
                                                                 const auto& ar) {
    Word v[1][kSplitWordsPerThread];
    split_round_in_shared<false, 0, Skip>(v, a, shared, th, c, ar);
    std::uint64_t* tile = tile_data(a, th);
    const bool final = region_has_stage0(a);
#pragma unroll
    for (int i = 0; i < kSplitWordsPerThread; ++i) tile[split_round_word<0>(th.lane, i)] = ar.stored(v[0][i], final);
  });
}

}  // namespace fhe::ntt::gpu
