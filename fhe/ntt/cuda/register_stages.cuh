// Radix-2 stages on words held in registers, shared by the global-pass and
// shared-region kernels. The stage index is a template argument so every
// register index is a compile-time constant: a run-time index would move
// the arrays to local memory (seen as a stack frame in `-Xptxas -v`).
#pragma once

#include <type_traits>
#include <utility>

#include "fhe/ntt/cuda/fp64_arith.cuh"
#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/lazy_butterfly.cuh"
#include "fhe/ntt/cuda/memory_access.cuh"

namespace fhe::ntt::gpu {

// Stage R of a block of 2^Bits words (stride 2^Bits >> (R+1) between the two
// words of a butterfly), on Lanes independent blocks that share twiddles,
// in the row's arithmetic (row_arith.cuh). twiddle_at(group) returns the
// pair of local group `group` (< 2^R). ReduceSums: the inverse's stage that
// reduces its sums (inverse_reduces_sums; only the double-precision
// butterflies need it).
template <bool Forward, int Bits, int R, int Lanes, bool ReduceSums, typename Word, typename Arith,
          typename TwiddleAt>
FHE_HD void register_stage(Word (&v)[Lanes][1 << Bits], const Arith& ar, TwiddleAt&& twiddle_at) {
  constexpr int kHalf = (1 << Bits) >> (R + 1);
#pragma unroll
  for (int group = 0; group < (1 << R); ++group) {
    const TwiddlePair<Word> w = twiddle_at(group);
#pragma unroll
    for (int k = 0; k < kHalf; ++k) {
      const int top = 2 * group * kHalf + k;
#pragma unroll
      for (int lane = 0; lane < Lanes; ++lane) {
        if constexpr (Forward) {
          ar.forward(v[lane][top], v[lane][top + kHalf], w);
        } else {
          ar.template inverse<ReduceSums>(v[lane][top], v[lane][top + kHalf], w);
        }
      }
    }
  }
}

// The inverse's stage 0 with N^-1 folded in (one group), fully reduced words out.
template <int Bits, int Lanes, typename Word, typename Arith>
FHE_HD void register_stage0_scaled(Word (&v)[Lanes][1 << Bits], const Arith& ar, const RowConstants<Word>& c) {
  constexpr int kHalf = (1 << Bits) >> 1;
#pragma unroll
  for (int k = 0; k < kHalf; ++k) {
#pragma unroll
    for (int lane = 0; lane < Lanes; ++lane) {
      ar.inverse_scaled(v[lane][k], v[lane][k + kHalf], c);
    }
  }
}

// Whether the inverse reduces its sums at stage r of a round of stages
// Skip..Count-1, run from Count-1 down (fp64_arith.cuh).
FHE_HD constexpr bool round_reduces_sums(int r, int skip, int count) {
  return inverse_reduces_sums(count - 1 - r, count - skip);
}

// Calls f(std::integral_constant<int, r>) for r = 0..Count-1 (forward order)
// or Count-1..0 (inverse order).
template <bool Forward, int... Rs, typename F>
FHE_HD void for_each_stage(std::integer_sequence<int, Rs...>, F&& f) {
  constexpr int kCount = sizeof...(Rs);
  (f(std::integral_constant<int, Forward ? Rs : kCount - 1 - Rs>{}), ...);
}

template <int Count, bool Forward, typename F>
FHE_HD void for_each_stage(F&& f) {
  for_each_stage<Forward>(std::make_integer_sequence<int, Count>{}, f);
}

// The twiddles of Count fused stages, stage r's groups at [2^r - 1, 2^(r+1) - 1).
template <typename Word, int Count>
using StageTwiddles = TwiddlePair<Word>[(1 << Count) - 1];

// Loads every twiddle of stages Skip..Count-1 up front, from the row's table
// in the row's arithmetic: they do not depend on the data, so their latency
// overlaps the data loads instead of stalling each stage in turn.
// index_at(r, group) gives the twiddle's index in the row. When the groups
// of every stage lie side by side (StageTwiddleAddress::consecutive), each
// stage's index is evaluated once and its twiddles are loaded at constant
// offsets from it. A template argument: with a run-time choice both load
// sequences compete for registers (the 80-register kernels then spilled up
// to 232 bytes).
template <int Count, int Skip, bool Consecutive, typename Word, typename Arith, typename IndexAt>
FHE_HD void load_stage_twiddles(StageTwiddles<Word, Count>& tw, const Arith& ar, const TwiddlePair<Word>* row,
                                IndexAt&& index_at) {
  for_each_stage<Count, true>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if constexpr (r >= Skip) {
      const std::uint32_t first = index_at(r, 0);
      // first + group in 64 bits: a 32-bit sum may wrap, so each load took
      // its own address (an IMAD.WIDE a twiddle); a 64-bit one folds group
      // into the load's offset (the 64-bit G4 pair: 3104 -> 2872 SASS).
#pragma unroll
      for (int group = 0; group < (1 << r); ++group) {
        tw[(1 << r) - 1 + group] = ar.twiddle(row, Consecutive ? std::size_t{first} + group : index_at(r, group));
      }
    }
  });
}

}  // namespace fhe::ntt::gpu
