// The global pass next to the shared region run inside the region's blocks:
// the forward's last pass (stages logN-8-G .. logN-9) or the inverse's
// first after the region. Such a pass works on blocks of 2^(8+G) words at
// stride 256, which are exactly 2^G region tiles, so one thread block can
// hold a pass block in shared memory and the words cross DRAM (or L2) once
// for both launches' stages instead of twice. The stages and twiddles are
// the pass's own (SPEC section 2's factorization is unchanged); only the
// exchange between the pass and the region goes through shared memory.
// A host function as well, so the emulation test runs it thread by thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cuda/global_pass.cuh"
#include "fhe/ntt/cuda/shared_region.cuh"

namespace fhe::ntt::gpu {

// The block of a pass of G stages fused with the region: 2^G tiles, 16
// threads a tile (kernel_params.h), each thread holding 16 of the pass's
// words, 2^G in each of 16 / 2^G columns.
template <int G>
struct PassRegionBlock {
  static_assert(G >= 1 && G <= kMaxGlobalPassStages, "the global pass kernels fuse 1 to 4 stages");
  static constexpr std::uint32_t kTiles = 1u << G;
  static constexpr std::uint32_t kThreads = kTiles * kThreadsPerTile;
  static constexpr int kColumnsPerThread = kWordsPerThread >> G;
  static_assert(kThreads * kColumnsPerThread == kTileWords, "a column per tile word");
  // Column l of `thread`: a warp's threads take consecutive columns, so its
  // loads and stores of one word of each column coalesce.
  static constexpr std::uint32_t column(std::uint32_t thread, int l) { return thread + l * kThreads; }
};

// The pass's stages on the pass block whose first tile is `first_tile`
// (block_first_tile of the region's arguments). Forward: from global
// memory into the block's tiles in shared memory (where forward_columns
// <FromShared> reads them); inverse: from the tiles inverse_columns
// <ToShared> left, out to global memory. Words go through shared memory in
// their stored form, so the region reads exactly what the separate pass
// would have written.
template <typename Word, int G, bool Forward>
FHE_HD void pass_in_region_block(const PassArgs<Word>& pass, Word* shared, std::uint32_t first_tile,
                                 std::uint32_t thread) {
  using Block = PassRegionBlock<G>;
  constexpr int kSpan = 1 << G;
  constexpr int kColumns = Block::kColumnsPerThread;
  const std::uint32_t tiles_per_row_log = pass.log_n - kTileBits;
  const std::uint32_t row = first_tile >> tiles_per_row_log;
  // The pass block's index in its row: the group at the pass's first stage.
  const std::uint32_t block = (first_tile & ((1u << tiles_per_row_log) - 1u)) >> G;
  std::uint64_t* words = pass.data + (static_cast<std::size_t>(first_tile) << kTileBits);
  const PassColumn col{words, kTileBits, block, plan_row_of(pass, row)};
  const RowConstants<Word> c = pass.constants[col.plan_row];
  // Word k of column x: tile k, position x.
  const auto slot = [&](int l, int k) { return k * kPaddedTileWords + padded(Block::column(thread, l)); };
  const auto at = [&](int l, int k) { return Block::column(thread, l) + (static_cast<std::size_t>(k) << kTileBits); };
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, G> tw;
    load_pass_twiddles<Word, G>(tw, pass, col, ar);
    Word v[kColumns][kSpan];
    if constexpr (Forward) wait_for_previous_kernel();  // the data is the previous pass's output
#pragma unroll
    for (int l = 0; l < kColumns; ++l) {
#pragma unroll
      for (int k = 0; k < kSpan; ++k) v[l][k] = ar.loaded(Forward ? words[at(l, k)] : shared[slot(l, k)]);
    }
    // The pass holding stage 0 is the inverse's last: N^-1 is folded in there.
    const bool scale_stage0 = !Forward && pass.first_stage == 0;
    pass_stages_in_registers<Forward, G, kColumns>(v, tw, ar, c, scale_stage0);
#pragma unroll
    for (int l = 0; l < kColumns; ++l) {
#pragma unroll
      for (int k = 0; k < kSpan; ++k) {
        if constexpr (Forward) {
          shared[slot(l, k)] = static_cast<Word>(ar.stored(v[l][k], false));
        } else {
          words[at(l, k)] = ar.stored(v[l][k], scale_stage0);
        }
      }
    }
  });
}

}  // namespace fhe::ntt::gpu
