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

template <typename Word>
FHE_HD void scale_down_tiles(const RegionScaleDownArgs<Word>& f, Word* shared, std::uint32_t block_index,
                             std::uint32_t tiles_per_block, std::uint32_t thread) {
  using u64 = std::uint64_t;
  const ntt::gpu::PassArgs<Word>& a = f.region;
  const std::size_t position_mask = (std::size_t{1} << a.log_n) - 1;
  // The item of the word at `offset`, its kept row and its index in the item's rows.
  struct Place {
    std::uint32_t item, row;
    std::size_t i;
  };
  const auto place = [&](std::size_t offset) {
    const auto [item, r] = item_row(a, static_cast<std::uint32_t>(offset >> a.log_n));
    return Place{item, r, (static_cast<std::size_t>(r) << a.log_n) + (offset & position_mask)};
  };
  const auto batch = [&]<int First>() {
    u64 x[kFinishBatch][2], z[kFinishBatch][2];
    Place at[kFinishBatch];
    ntt::gpu::for_each_tile_pair<Word, First, kFinishBatch>(
        a, shared, block_index, tiles_per_block, thread, [&](int p, std::size_t offset, Word&, Word&) {
          at[p - First] = place(offset);
          const Place& o = at[p - First];
          ntt::gpu::load_two(f.items[o.item].x + o.i, x[p - First][0], x[p - First][1]);
          if (f.items[o.item].addend) ntt::gpu::load_two(f.items[o.item].addend + o.i, z[p - First][0], z[p - First][1]);
        });
    ntt::gpu::for_each_tile_pair<Word, First, kFinishBatch>(
        a, shared, block_index, tiles_per_block, thread, [&](int p, std::size_t, Word& first, Word& second) {
          const Place& o = at[p - First];
          const ScaleDownItem& it = f.items[o.item];
          const u64 q = a.constants[a.first_row + o.row].q;
          const u64 w = f.scale_down.inverse_mod_kept[o.row], w_shoup = f.scale_down.inverse_mod_kept_shoup[o.row];
          u64 y0 = mul_shoup<u64>(sub_mod<u64>(x[p - First][0], first, q), w, w_shoup, q);
          u64 y1 = mul_shoup<u64>(sub_mod<u64>(x[p - First][1], second, q), w, w_shoup, q);
          if (it.addend) {
            y0 = add_mod<u64>(y0, z[p - First][0], q);
            y1 = add_mod<u64>(y1, z[p - First][1], q);
          }
          ntt::gpu::store_two(it.out + o.i, y0, y1);
        });
  };
  static_assert(ntt::gpu::kWordsPerThread / 2 % kFinishBatch == 0);
  [&]<int... B>(std::integer_sequence<int, B...>) {
    (batch.template operator()<B * kFinishBatch>(), ...);
  }(std::make_integer_sequence<int, ntt::gpu::kWordsPerThread / 2 / kFinishBatch>{});
}

}  // namespace fhe::cuda
