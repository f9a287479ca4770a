// The ModUp's basis conversion fused with the batched forward transform's
// first pass (the kernel in conversion_pass.cu). Unfused, the conversion
// writes every digit's target rows (355 rows, 182 MB at level 0 of the
// default preset) and the first pass reads them back and writes them
// again; fused, a thread computes the words its pass column needs straight
// from the digit's source rows and runs the pass on them, so the target
// rows are written once.
//
// A block takes a run of pass columns (items) of one digit for a slice of
// its targets. Each thread first lifts the sources at its words' offsets
// (lift_source: y_i, or the double-precision y~_i) into its own slots of
// shared memory, then for every
// target of the slice forms the target words (the same sums as the
// conversion kernel, conversion_thread.cuh, so the same words) and runs the
// NTT's own pass tail (global_pass_stages_and_stores) on them. The slots are
// the thread's alone: no barrier. FHE_HD, so the host emulation test
// (tests/evaluator/gpu/conversion_pass_emulation_test.cpp) runs it thread by
// thread against the conversion and the first pass run one after the other.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/conversion_thread.cuh"
#include "fhe/ntt/cuda/global_pass.cuh"

namespace fhe::cuda {

template <typename Word>
struct ConversionPassArgs {
  // The batched forward's first pass over digits x extended rows
  // (batch_rows = extended rows; it has one block: first stage 0).
  ntt::gpu::PassArgs<Word> pass;
  const DeviceConversion* conversions;  // per digit (device array)
  const std::uint64_t* source;          // the input's rows in coefficient form
  int targets_per_slice;
};

// A thread takes one offset's 2^G words (the NTT's own pass may take two
// side by side: twice the registers here, where the conversion's sums
// need them; the first pass's twiddles are the same for every thread).
template <int G>
inline constexpr int kConversionPassWords = 1 << G;

template <int G>
FHE_HD std::uint32_t conversion_pass_items_per_row(std::uint32_t log_n) {
  return 1u << (log_n - G);
}

// Shared-memory slots a thread needs: `sources` lifts per word.
template <int G>
FHE_HD constexpr std::size_t conversion_pass_slots(int sources) {
  return static_cast<std::size_t>(sources) * kConversionPassWords<G>;
}

// Thread `item` of the pass for digit `digit`, targets of slice `slice`;
// its slot s is lifts[s * lift_stride].
template <typename Word, int G>
FHE_HD void conversion_pass_thread(const ConversionPassArgs<Word>& f, std::uint32_t digit, std::uint32_t slice,
                                   std::uint32_t item, std::uint64_t* lifts, std::uint32_t lift_stride) {
  namespace ntt = fhe::ntt::gpu;
  using u64 = std::uint64_t;
  constexpr int kWords = kConversionPassWords<G>;  // word k: k strides on from the thread's offset
  constexpr int kMontgomeryChunk = kWords < 4 ? kWords : 4;
  const ntt::PassArgs<Word>& a = f.pass;
  if (item >= conversion_pass_items_per_row<G>(a.log_n)) return;
  const DeviceConversion& c = f.conversions[digit];
  const int first = static_cast<int>(slice) * f.targets_per_slice;
  if (first >= c.targets) return;
  const int last = std::min(c.targets, first + f.targets_per_slice);
  const bool fp64 = c.fp64_sources && c.sources <= kMaxFp64Sources;
  const auto slot = [&](int i, int j) -> u64& {
    return lifts[(static_cast<std::size_t>(i) * kWords + j) * lift_stride];
  };

  // The thread's offsets in every row: the first pass has one block.
  const std::size_t n = std::size_t{1} << a.log_n;
  const std::size_t offset = static_cast<std::size_t>(ntt::locate_pass_column<Word, G>(a, 0, item, 1).base - a.data);
  const auto lift_all = [&]<bool Fp64>() {
#pragma unroll 1
    for (int i = 0; i < c.sources; ++i) {
      const u64* src = f.source + static_cast<std::size_t>(c.source_offset_rows + i) * n + offset;
#pragma unroll
      for (int k = 0; k < kWords; ++k) {
        bool negative;
        slot(i, k) = lift_source<Fp64>(c, i, src[static_cast<std::size_t>(k) << (a.log_n - G)], negative);
      }
    }
  };
  ntt::wait_for_previous_kernel();  // the sources are the inverse transform's output
  if (fp64) {
    lift_all.template operator()<true>();
  } else {
    lift_all.template operator()<false>();
  }

#pragma unroll 1
  for (int t = first; t < last; ++t) {
    const std::uint32_t row = digit * a.batch_rows.value + c.target_offsets[t];
    const ntt::PassColumn col = ntt::locate_pass_column<Word, G>(a, row, item, 1);
    const ntt::RowConstants<Word> rc = a.constants[col.plan_row];
    ntt::with_row_arith(rc, [&](const auto& ar) {
      Word v[1][kWords];
      const auto put = [&](int k, u64 word) { v[0][k] = ar.loaded(word); };
      const auto lift = [&](int j, int i) { return slot(i, j); };
      const double p_inverse = fp64 ? c.target_inverse[t] : 0.0;
      if (p_inverse != 0) {
        const double* hat = c.hat_fp64 + static_cast<std::size_t>(t) * c.sources;
        fp64_target_words<kMaxFp64Sources, kWords>(ntt::Fp64Arith(c.target_moduli[t].value, p_inverse), c.sources,
                                                   [&](int i) { return hat[i]; }, lift, put);
      } else {  // the wide targets: kMontgomeryChunk words at a time (128-bit sums in registers)
        const u64* hat = c.hat_montgomery + static_cast<std::size_t>(t) * c.sources;
#pragma unroll
        for (int j0 = 0; j0 < kWords; j0 += kMontgomeryChunk) {
          montgomery_target_words<kMaxConversionSources, kMontgomeryChunk>(
              c, t, c.sources, [&](int i) { return hat[i]; },
              [&](int j) {  // counted again rather than kept
                std::uint32_t count = 0;
                for (int i = 0; i < c.sources; ++i) {
                  const u64 y = slot(i, j0 + j);
                  count += (fp64 ? ntt::fp64_of_bits(y) < 0 : y > c.source_moduli[i].value / 2) ? 1 : 0;
                }
                return count;
              },
              [&](int j, int i) { return fp64 ? word_of_lift(c, i, slot(i, j0 + j)) : slot(i, j0 + j); },
              [&](int j, u64 word) { put(j0 + j, word); });
        }
      }
      ntt::StageTwiddles<Word, G> tw;
      ntt::load_pass_twiddles<Word, G>(tw, a, col, ar);
      ntt::global_pass_stages_and_stores<Word, G, true, 1>(a, col, rc, ar, tw, v);
    });
  }
}

}  // namespace fhe::cuda
