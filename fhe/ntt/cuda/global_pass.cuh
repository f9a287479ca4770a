// Body of one thread of a global fused pass (compact group or strict radix
// digit): G consecutive radix-2 stages starting at forward stage f, fused in
// registers. The row splits into 2^f blocks; inside a block the pass works
// on 2^G words at stride t = N >> (f + G). A thread takes `lanes`
// neighbouring offsets (global_pass_lanes: two gives coalesced 16-byte
// pairs and two butterflies per twiddle load). The twiddles do not depend on
// the data, so the compiler issues all their loads with the data loads. A
// host function as well, so the emulation test can run it without a GPU.
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

// Thread items per row: one per `lanes` offsets in every block.
template <typename Word, int G>
FHE_HD std::uint32_t global_pass_items_per_row(std::uint32_t log_n) {
  return 1u << (log_n - G - kGlobalPassLanesLog<Word, G>);
}

template <typename Word, int G, bool Forward>
FHE_HD void global_pass_item(const PassArgs<Word>& a, std::uint32_t row, std::uint32_t item) {
  if (skipped_row(a, row)) return;
  constexpr int kSpan = 1 << G;
  constexpr int kLanes = kGlobalPassLanes<Word, G>;
  const std::uint32_t stride_log = a.log_n - a.first_stage - G;  // t = 2^stride_log >= 2
  const std::uint32_t item_log = stride_log - kGlobalPassLanesLog<Word, G>;  // items per block
  const std::uint32_t block = item >> item_log;
  const std::uint32_t offset = (item & ((1u << item_log) - 1u)) * kLanes;
  std::uint64_t* base = a.data + (static_cast<std::size_t>(row) << a.log_n) +
                        (static_cast<std::size_t>(block) << (a.log_n - a.first_stage)) + offset;
  const std::uint32_t plan_row = plan_row_of(a, row);
  const TwiddlePair<Word>* twiddles =
      a.twiddles + static_cast<std::size_t>(plan_row) * a.table_stride;
  const Word q = a.constants[plan_row].q;

  StageTwiddles<Word, G> tw;
  // Every global pass (one group or one digit) has its twiddles side by
  // side; make_pass_launches checks it.
  load_stage_twiddles<G, 0, true>(tw, [&](int r, int group) {
    return twiddles + twiddle_index(a.address, r, (block << r) + group);
  });

  wait_for_previous_kernel();  // the data is the previous pass's output
  Word v[kLanes][kSpan];  // v[lane][k]: the word at offset j + lane, k strides on
#pragma unroll
  for (int k = 0; k < kSpan; ++k) {
    const std::uint64_t* p = base + (static_cast<std::size_t>(k) << stride_log);
    if constexpr (kLanes == 2) {
      std::uint64_t first, second;
      load_two(p, first, second);
      v[0][k] = static_cast<Word>(first);
      v[1][k] = static_cast<Word>(second);
    } else {
      v[0][k] = static_cast<Word>(*p);
    }
  }

  // The pass holding stage 0 is the inverse's last: N^-1 is folded in there.
  const bool scale_stage0 = !Forward && a.first_stage == 0;
  for_each_stage<G, Forward>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if (r == 0 && scale_stage0) {
      register_stage0_scaled<G, kLanes>(v, a.constants[plan_row]);
      return;
    }
    register_stage<Forward, G, r, kLanes>(v, q, [&](int group) { return tw[(1 << r) - 1 + group]; });
  });

#pragma unroll
  for (int k = 0; k < kSpan; ++k) {
    std::uint64_t* p = base + (static_cast<std::size_t>(k) << stride_log);
    if constexpr (kLanes == 2) {
      store_two(p, v[0][k], v[1][k]);
    } else {
      *p = v[0][k];
    }
  }
}

}  // namespace fhe::ntt::gpu
