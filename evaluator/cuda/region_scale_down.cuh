// The fused region + RnsScaleDown finish's last phase (the kernel in
// region_scale_down.cu runs the NTT's forward_columns and tile_rows before
// it). FHE_HD, so the host emulation test
// (tests/evaluator/gpu/region_scale_down_emulation_test.cpp) runs it
// thread by thread.
#pragma once

#include <cstdint>
#include <utility>

#include "evaluator/cuda/device_conversion.h"
#include "evaluator/cuda/eval_kernels.h"
#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"
#include "fhe/ntt/cuda/pass_region.cuh"
#include "fhe/ntt/cuda/shared_region.cuh"

namespace fhe::cuda {

template <typename Word>
struct RegionScaleDownArgs {
  ntt::gpu::PassArgs<Word> region;  // item_count blocks of the kept rows
  DeviceScaleDown scale_down;
  ScaleDownItem items[kMaxScaleDownItems];
  bool any_x_scratch = false;  // some item's x_scratch
  // The global pass before the region, when the kernel runs it too
  // (ForwardRegion::pass_wide / pass_narrow; pass_region.cuh).
  ntt::gpu::PassArgs<Word> pass{};
};

// A data row of the region's batch: its item and its kept row in that item.
struct ItemRow {
  std::uint32_t item;
  std::uint32_t row;
};

template <typename Word>
FHE_HD ItemRow item_row(const ntt::gpu::PassArgs<Word>& a, std::uint32_t data_row) {
  const std::uint32_t item = a.batch_rows.quotient(data_row);
  return {item, data_row - item * a.batch_rows.value};
}

// Phase 3: for each transformed word t of the block's tiles (item i, kept
// row r, position k), out_i[r][k] = (x_i[r][k] - t) [D^-1]_(q_r)
// (+ addend_i[r][k]): scale_down_finish_kernel's words, two neighbouring
// positions per 16-byte access. The x and addend words of kFinishBatch
// pairs are loaded before any of them is stored: a store waits for its
// loads, and in order the next pair's loads wait for that store, so one
// pair at a time made every pair a round trip to DRAM of its own.
inline constexpr int kFinishBatch = 4;

// What the finish needs of a kept row of an item: its arrays from the
// row's first word on and its constants.
struct FinishRow {
  const std::uint64_t* x;
  const std::uint64_t* addend;  // null: none
  std::uint64_t* out;
  std::uint64_t q, w, w_shoup;  // w = [D^-1]_q
  bool fp64;                    // the row's words come as doubles (below)
  double q_inverse;             // fp64: fl(1 / q)
};

template <typename Word>
FHE_HD FinishRow finish_row(const RegionScaleDownArgs<Word>& f, std::uint32_t data_row) {
  const auto [item, r] = item_row(f.region, data_row);
  const ScaleDownItem& it = f.items[item];
  const std::size_t first = static_cast<std::size_t>(r) << f.region.log_n;
  const ntt::gpu::RowConstants<Word>& c = f.region.constants[f.region.first_row + r];
  return {it.x + first,
          it.addend ? it.addend + first : nullptr,
          it.out + first,
          c.q,
          f.scale_down.inverse_mod_kept[r],
          f.scale_down.inverse_mod_kept_shoup[r],
          c.fp64 != 0,
          c.fp64_q_inverse};
}

// One word of the finish: (x - t) [D^-1]_q (+ z when add) in [0, q), t the region's
// word. A row of the double-precision butterflies (Fp64) hands t over as the
// region left it, an unreduced double (tile_rows_at's KeepFp64), and
// finishes in doubles: about 15 FP64 operations where the reduction to
// [0, q) and the 64-bit Shoup product took about 40 integer instructions,
// most on the multiply pipe the region's 60-bit rows need. Exact either way
// (the same word): |t| < 32 q (at most 16 stages of 0.63 q growth on
// inputs below 3 q plus each stored pass's 3 q bias, fp64_arith.cuh), so
// |x - t| < 2^48, within Fp64Arith::product's 2^49.
template <bool Fp64>
FHE_HD std::uint64_t finish_word(const FinishRow& row, std::uint64_t x, std::uint64_t t, std::uint64_t z, bool add) {
  using u64 = std::uint64_t;
  if constexpr (Fp64) {
    using namespace ntt::gpu;
    const Fp64Arith ar(row.q, row.q_inverse);
    double y = ar.product(fp64_add(fp64_of_word(x), -fp64_of_bits(t)), ar.constant(row.w));
    if (add) y = ar.reduce(fp64_add(y, fp64_of_word(z)));  // |y + z| < 1.63 q
    return ar.canonical(y);
  } else {
    const u64 y = mul_shoup<u64>(sub_mod<u64>(x, t, row.q), row.w, row.w_shoup, row.q);
    return add ? add_mod<u64>(y, z, row.q) : y;
  }
}

// Which arithmetic a block's finish uses: one for all its pairs (its
// tiles lie in one row), or each pair's row's own.
enum class FinishArith { integer, fp64, per_row };

template <FinishArith Arith>
FHE_HD std::uint64_t finish_word_of(const FinishRow& row, std::uint64_t x, std::uint64_t t, std::uint64_t z,
                                    bool add) {
  if constexpr (Arith == FinishArith::per_row) {
    return row.fp64 ? finish_word<true>(row, x, t, z, add) : finish_word<false>(row, x, t, z, add);
  } else {
    return finish_word<Arith == FinishArith::fp64>(row, x, t, z, add);
  }
}

// Whether each block's tiles lie in one row (blocks start at a multiple of
// their tile count, shared_region.cuh's block_first_tile): then a thread
// reads its row's pointers and constants once, before any of its stores.
// Read per pair instead, they were read again after every store (the
// compiler cannot tell `out` from them): a sixth of the finish's SASS
// (1475 -> 1242 instructions) and the loads its stalls waited on most;
// rescale -1.5 to -1.9 % on the H100 (docs/performance.md, session 63).
template <typename Word>
FHE_HD bool finish_blocks_in_one_row(const RegionScaleDownArgs<Word>& f, std::uint32_t tiles_per_block) {
  return tiles_per_block <= (1u << (f.region.log_n - ntt::gpu::kTileBits));
}

// Pair i's row in a batch: the block's, or the one data_row[i] names
// (only read where !OneRow: a plain ?: names the array in both
// instantiations, and nvcc warns of its use before it is set).
template <bool OneRow, typename Word>
FHE_HD FinishRow pair_row(const RegionScaleDownArgs<Word>& f, const FinishRow& block_row,
                          const std::uint32_t* data_row, int i) {
  if constexpr (OneRow) {
    return block_row;
  } else {
    return finish_row(f, data_row[i]);
  }
}

template <typename Word, bool OneRow, FinishArith Arith>
FHE_HD void scale_down_pairs(const RegionScaleDownArgs<Word>& f, const FinishRow& block_row, Word* shared,
                             std::uint32_t block_index, std::uint32_t tiles_per_block, std::uint32_t thread) {
  using u64 = std::uint64_t;
  const ntt::gpu::PassArgs<Word>& a = f.region;
  const std::size_t position_mask = (std::size_t{1} << a.log_n) - 1;
  const auto row_of = [&](std::size_t offset) { return static_cast<std::uint32_t>(offset >> a.log_n); };
  const auto batch = [&]<int First>() {
    u64 x[kFinishBatch][2], z[kFinishBatch][2];
    std::uint32_t data_row[kFinishBatch];  // !OneRow: each pair's
    ntt::gpu::for_each_tile_pair<Word, First, kFinishBatch>(
        a, shared, block_index, tiles_per_block, thread, [&](int p, std::size_t offset, Word&, Word&) {
          if constexpr (!OneRow) data_row[p - First] = row_of(offset);
          const FinishRow row = pair_row<OneRow>(f, block_row, data_row, p - First);
          const std::size_t k = offset & position_mask;
          ntt::gpu::load_two(row.x + k, x[p - First][0], x[p - First][1]);
          if (row.addend) ntt::gpu::load_two(row.addend + k, z[p - First][0], z[p - First][1]);
        });
    ntt::gpu::for_each_tile_pair<Word, First, kFinishBatch>(
        a, shared, block_index, tiles_per_block, thread, [&](int p, std::size_t offset, Word& first, Word& second) {
          const FinishRow row = pair_row<OneRow>(f, block_row, data_row, p - First);
          const bool add = row.addend != nullptr;
          const u64 y0 = finish_word_of<Arith>(row, x[p - First][0], first, z[p - First][0], add);
          const u64 y1 = finish_word_of<Arith>(row, x[p - First][1], second, z[p - First][1], add);
          ntt::gpu::store_two(row.out + (offset & position_mask), y0, y1);
        });
  };
  static_assert(ntt::gpu::kWordsPerThread / 2 % kFinishBatch == 0);
  [&]<int... B>(std::integer_sequence<int, B...>) {
    (batch.template operator()<B * kFinishBatch>(), ...);
  }(std::make_integer_sequence<int, ntt::gpu::kWordsPerThread / 2 / kFinishBatch>{});
}

template <typename Word>
FHE_HD void scale_down_tiles(const RegionScaleDownArgs<Word>& f, Word* shared, std::uint32_t block_index,
                             std::uint32_t tiles_per_block, std::uint32_t thread) {
  constexpr bool kWide = sizeof(Word) == 8;  // only 64-bit rows run the double-precision butterflies
  const ntt::gpu::PassArgs<Word>& a = f.region;
  if (!finish_blocks_in_one_row(f, tiles_per_block)) {
    constexpr FinishArith kArith = kWide ? FinishArith::per_row : FinishArith::integer;
    return scale_down_pairs<Word, false, kArith>(f, FinishRow{}, shared, block_index, tiles_per_block, thread);
  }
  const std::uint32_t first_tile = ntt::gpu::block_first_tile(a, block_index, tiles_per_block);
  if (first_tile >= (a.row_count << (a.log_n - ntt::gpu::kTileBits))) return;  // no tile of the block is valid
  const FinishRow row = finish_row(f, static_cast<std::uint32_t>((std::size_t{first_tile} << ntt::gpu::kTileBits) >>
                                                                 a.log_n));
  if constexpr (kWide) {
    if (row.fp64) {
      return scale_down_pairs<Word, true, FinishArith::fp64>(f, row, shared, block_index, tiles_per_block, thread);
    }
  }
  scale_down_pairs<Word, true, FinishArith::integer>(f, row, shared, block_index, tiles_per_block, thread);
}

}  // namespace fhe::cuda
