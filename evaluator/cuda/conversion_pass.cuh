// The ModUp's basis conversion fused with the batched forward transform's
// first pass (the kernel in conversion_pass.cu). Unfused, the conversion
// writes every digit's target rows (355 rows, 182 MB at level 0 of the
// default preset) and the first pass reads them back and writes them
// again; fused, a thread computes the words its pass column needs straight
// from the digit's source rows and runs the pass on them, so the target
// rows are written once.
//
// A block takes kConversionPassItems pass columns (one offset's 2^G words
// each) of one digit for kConversionPassTargets of its targets, in two
// phases with a barrier between:
// - lift: the block's threads lift the sources at the columns' words
//   (lift_source: y_i, or the double-precision y~_i) into shared memory,
//   once for all the block's targets;
// - each thread (column, target) forms its target words from the lifts
//   (the sums of the conversion kernel, conversion_thread.cuh, so the same
//   words) and runs the NTT's own pass tail (global_pass_stages_and_stores)
//   on them. A warp is one target: its constants and twiddles are uniform
//   loads, and the twiddles are loaded as the stages need them (the first
//   pass has one block, so they are the same for every column), which keeps
//   the registers low enough for 4 blocks an SM.
// FHE_HD, so the host emulation test
// (tests/evaluator/gpu/conversion_pass_emulation_test.cpp) runs the phases
// thread by thread against the conversion and the first pass run one after
// the other.
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
};

// A block: 32 columns (a warp) x 6 targets (a digit's 35 or 36 targets at
// level 0 of the default preset are six blocks' worth).
inline constexpr unsigned kConversionPassItems = 32;
inline constexpr unsigned kConversionPassTargets = 6;
inline constexpr unsigned kConversionPassThreads = kConversionPassItems * kConversionPassTargets;

template <int G>
FHE_HD std::uint32_t conversion_pass_items_per_row(std::uint32_t log_n) {
  return 1u << (log_n - G);
}

// Lift slots of a block: sources x 2^G words x its columns.
template <int G>
FHE_HD constexpr std::size_t conversion_pass_slots(int sources) {
  return (static_cast<std::size_t>(sources) << G) * kConversionPassItems;
}

// Slot of source i, word k (k strides on from the column's offset), column c.
template <int G>
FHE_HD std::size_t lift_slot(int i, int k, std::uint32_t column) {
  return ((static_cast<std::size_t>(i) << G) + k) * kConversionPassItems + column;
}

// Phase 1, thread `thread` of block (x = run of columns, digit, z = slice of targets).
template <typename Word, int G>
FHE_HD void conversion_pass_lift(const ConversionPassArgs<Word>& f, std::uint32_t block_x, std::uint32_t digit,
                                 std::uint32_t thread, std::uint64_t* lifts) {
  const ntt::gpu::PassArgs<Word>& a = f.pass;
  const DeviceConversion& c = f.conversions[digit];
  const bool fp64 = c.fp64_sources && c.sources <= kMaxFp64Sources;
  const std::size_t n = std::size_t{1} << a.log_n;
  const std::uint32_t first_item = block_x * kConversionPassItems;
  const std::uint32_t count = static_cast<std::uint32_t>(c.sources << G) * kConversionPassItems;
  for (std::uint32_t s = thread; s < count; s += kConversionPassThreads) {
    const std::uint32_t column = s % kConversionPassItems;
    const auto k = static_cast<int>((s / kConversionPassItems) & ((1u << G) - 1));
    const auto i = static_cast<int>((s / kConversionPassItems) >> G);
    // Column `item`'s word k sits at item + k * 2^(logN - G): the first pass has one block.
    const std::size_t at = static_cast<std::size_t>(c.source_offset_rows + i) * n + first_item + column +
                           (static_cast<std::size_t>(k) << (a.log_n - G));
    bool negative;
    lifts[s] = fp64 ? lift_source<true>(c, i, f.source[at], negative) : lift_source<false>(c, i, f.source[at], negative);
  }
}

// Phase 2: thread (column, target) of the block.
template <typename Word, int G>
FHE_HD void conversion_pass_target(const ConversionPassArgs<Word>& f, std::uint32_t block_x, std::uint32_t digit,
                                   std::uint32_t slice, std::uint32_t thread, const std::uint64_t* lifts) {
  namespace ntt = fhe::ntt::gpu;
  using u64 = std::uint64_t;
  constexpr int kWords = 1 << G;  // word k: k strides on from the column's offset
  constexpr int kMontgomeryChunk = kWords < 4 ? kWords : 4;
  const ntt::PassArgs<Word>& a = f.pass;
  const DeviceConversion& c = f.conversions[digit];
  const std::uint32_t column = thread % kConversionPassItems;
  const int t = static_cast<int>(slice * kConversionPassTargets + thread / kConversionPassItems);
  if (t >= c.targets) return;
  const bool fp64 = c.fp64_sources && c.sources <= kMaxFp64Sources;
  const auto lift = [&](int k, int i) { return lifts[lift_slot<G>(i, k, column)]; };

  const std::uint32_t row = digit * a.batch_rows.value + c.target_offsets[t];
  const ntt::PassColumn col =
      ntt::locate_pass_column<Word, G>(a, row, block_x * kConversionPassItems + column, 1);
  const ntt::RowConstants<Word> rc = a.constants[col.plan_row];
  ntt::with_row_arith(rc, [&](const auto& ar) {
    Word v[1][kWords];
    const auto put = [&](int k, u64 word) { v[0][k] = ar.loaded(word); };
    const double p_inverse = fp64 ? c.target_inverse[t] : 0.0;
    if (p_inverse != 0) {
      const double* hat = c.hat_fp64 + static_cast<std::size_t>(t) * c.sources;
      fp64_target_words<kMaxFp64Sources, kWords>(ntt::Fp64Arith(c.target_moduli[t].value, p_inverse), c.sources,
                                                 [&](int i) { return hat[i]; }, lift, put);
    } else {  // the wide targets: kMontgomeryChunk words at a time (128-bit sums in registers)
      const u64* hat = c.hat_montgomery + static_cast<std::size_t>(t) * c.sources;
#pragma unroll
      for (int k0 = 0; k0 < kWords; k0 += kMontgomeryChunk) {
        montgomery_target_words<kMaxConversionSources, kMontgomeryChunk>(
            c, t, c.sources, [&](int i) { return hat[i]; },
            [&](int k) {  // counted again rather than kept
              std::uint32_t count = 0;
              for (int i = 0; i < c.sources; ++i) {
                const u64 y = lift(k0 + k, i);
                count += (fp64 ? ntt::fp64_of_bits(y) < 0 : y > c.source_moduli[i].value / 2) ? 1 : 0;
              }
              return count;
            },
            [&](int k, int i) { return fp64 ? word_of_lift(c, i, lift(k0 + k, i)) : lift(k0 + k, i); },
            [&](int k, u64 word) { put(k0 + k, word); });
      }
    }
    const auto* table = ntt::pass_twiddles(a, col);
    ntt::global_pass_stages_and_stores<Word, G, true, 1>(
        a, col, rc, ar,
        [&](int r, int group) { return ar.twiddle(table, ntt::twiddle_index(a.address, r, group)); }, v);
  });
}

}  // namespace fhe::cuda
