// Body of one thread of a global fused pass (compact group or strict radix
// digit): G consecutive radix-2 stages starting at forward stage f, fused in
// registers. The row splits into 2^f blocks; inside a block the pass works
// on 2^G words at stride t = N >> (f + G). One work item takes `lanes`
// neighbouring offsets (global_pass_lanes: two gives coalesced 16-byte
// pairs and two butterflies per twiddle load).
//
// Software pipeline: a thread walks its items with a grid-wide stride and,
// while it transforms one item from registers, the words of its next item
// are already on their way into shared memory (cp.async, two buffers). Each
// thread copies only the words it will itself read, so no barrier is needed
// and DRAM keeps streaming while the integer pipes work. A host function as
// well, so the emulation test runs the very same thread body.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/memory_access.cuh"
#include "fhe/ntt/cuda/register_stages.cuh"

namespace fhe::ntt::gpu {

template <typename Word, int G>
inline constexpr int kGlobalPassLanes = global_pass_lanes(G, sizeof(Word));
template <typename Word, int G>
inline constexpr int kGlobalPassLanesLog = kGlobalPassLanes<Word, G> == 2 ? 1 : 0;

// Work items per row: one per `lanes` offsets in every block.
template <typename Word, int G>
FHE_HD std::uint32_t global_pass_items_per_row(std::uint32_t log_n) {
  return 1u << (log_n - G - kGlobalPassLanesLog<Word, G>);
}

// Where the words of one work item live.
struct GlobalPassItem {
  std::uint64_t* base;      // word k of lane l at base + (k << stride_log) + l
  std::uint32_t stride_log;
  std::uint32_t block;      // block index inside the row (selects the twiddles)
  std::uint32_t plan_row;
};

// Work item `unit` over all rows of the launch (row-major).
template <typename Word, int G>
FHE_HD GlobalPassItem locate_pass_item(const PassArgs<Word>& a, std::uint32_t unit) {
  constexpr int kLanesLog = kGlobalPassLanesLog<Word, G>;
  const std::uint32_t items_log = a.log_n - G - kLanesLog;
  const std::uint32_t row = unit >> items_log;
  const std::uint32_t item = unit & ((1u << items_log) - 1u);
  const std::uint32_t stride_log = a.log_n - a.first_stage - G;  // t = 2^stride_log >= 2
  const std::uint32_t item_log = stride_log - kLanesLog;         // items per block
  const std::uint32_t block = item >> item_log;
  const std::uint32_t offset = (item & ((1u << item_log) - 1u)) << kLanesLog;
  std::uint64_t* base = a.data + (static_cast<std::size_t>(row) << a.log_n) +
                        (static_cast<std::size_t>(block) << (a.log_n - a.first_stage)) + offset;
  return {base, stride_log, block, a.first_row + row};
}

// The item's words into this thread's slots of a pipeline buffer (word k of
// lane l at slots[k * k_stride + l]), asynchronously.
template <typename Word, int G>
FHE_HD void copy_item_async(const GlobalPassItem& it, std::uint64_t* slots,
                            std::uint32_t k_stride) {
  constexpr int kLanes = kGlobalPassLanes<Word, G>;
#pragma unroll
  for (int k = 0; k < (1 << G); ++k) {
    copy_async<8 * kLanes>(slots + k * k_stride,
                           it.base + (static_cast<std::size_t>(k) << it.stride_log));
  }
}

template <typename Word, int G>
FHE_HD void load_item_twiddles(const PassArgs<Word>& a, const GlobalPassItem& it,
                               StageTwiddles<Word, G>& tw) {
  const TwiddlePair<Word>* twiddles =
      a.twiddles + static_cast<std::size_t>(it.plan_row) * a.table_stride;
  load_stage_twiddles<G, 0>(tw, [&](int r, int group) {
    return twiddles + twiddle_index(a.address, r, (it.block << r) + group);
  });
}

// Stages of the pass on the item's words (read from its slots), stored back.
template <typename Word, int G, bool Forward>
FHE_HD void transform_item(const PassArgs<Word>& a, const GlobalPassItem& it,
                           const StageTwiddles<Word, G>& tw, const std::uint64_t* slots,
                           std::uint32_t k_stride) {
  constexpr int kSpan = 1 << G;
  constexpr int kLanes = kGlobalPassLanes<Word, G>;
  const Word q = a.constants[it.plan_row].q;

  Word v[kLanes][kSpan];  // v[lane][k]: the word at offset j + lane, k strides on
#pragma unroll
  for (int k = 0; k < kSpan; ++k) {
#pragma unroll
    for (int lane = 0; lane < kLanes; ++lane) v[lane][k] = static_cast<Word>(slots[k * k_stride + lane]);
  }

  // The pass holding stage 0 is the inverse's last: N^-1 is folded in there.
  const bool scale_stage0 = !Forward && a.first_stage == 0;
  for_each_stage<G, Forward>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if (r == 0 && scale_stage0) {
      register_stage0_scaled<G, kLanes>(v, a.constants[it.plan_row]);
      return;
    }
    register_stage<Forward, G, r, kLanes>(v, q, [&](int group) { return tw[(1 << r) - 1 + group]; });
  });

#pragma unroll
  for (int k = 0; k < kSpan; ++k) {
    std::uint64_t* p = it.base + (static_cast<std::size_t>(k) << it.stride_log);
    if constexpr (kLanes == 2) {
      store_two(p, v[0][k], v[1][k]);
    } else {
      *p = v[0][k];
    }
  }
}

// One thread's whole share of the pass: items block_index * block_threads +
// thread + i * grid_blocks * block_threads, double-buffered in `shared`
// (global_pass_buffer_words).
template <typename Word, int G, bool Forward>
FHE_HD void global_pass_thread(const PassArgs<Word>& a, std::uint64_t* shared,
                               std::uint32_t block_index, std::uint32_t grid_blocks,
                               std::uint32_t block_threads, std::uint32_t thread) {
  constexpr int kLanes = kGlobalPassLanes<Word, G>;
  const std::uint32_t units = a.row_count * global_pass_items_per_row<Word, G>(a.log_n);
  const std::uint32_t k_stride = block_threads * kLanes;
  // This thread's slots in buffer b: own + b * buffer_words (arithmetic, not
  // an array of two pointers, which a run-time index would put on the stack).
  std::uint64_t* const own = shared + thread * kLanes;
  const std::uint32_t buffer_words = (1u << G) * k_stride;
  const std::uint32_t step = grid_blocks * block_threads;
  std::uint32_t unit = block_index * block_threads + thread;

  wait_for_previous_kernel();  // the data is the previous pass's output
  if (unit < units) copy_item_async<Word, G>(locate_pass_item<Word, G>(a, unit), own, k_stride);
  commit_async_copies();
  for (int i = 0; unit < units; ++i, unit += step) {
    const std::uint32_t next = unit + step;
    if (next < units) {
      copy_item_async<Word, G>(locate_pass_item<Word, G>(a, next),
                               own + ((i + 1) & 1) * buffer_words, k_stride);
    }
    commit_async_copies();
    const GlobalPassItem it = locate_pass_item<Word, G>(a, unit);
    StageTwiddles<Word, G> tw;
    load_item_twiddles<Word, G>(a, it, tw);  // in flight with the copies
    wait_async_copies_but_one();             // this item's words have landed
    transform_item<Word, G, Forward>(a, it, tw, own + (i & 1) * buffer_words, k_stride);
  }
}

}  // namespace fhe::ntt::gpu
