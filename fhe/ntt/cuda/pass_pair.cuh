// Two global passes of G stages, the second starting where the first ends
// (forward stages f .. f+2G-1), in one launch without a cluster. Every
// butterfly of those stages pairs words a multiple of t = N >> (f + 2G)
// apart, so inside a block of the first pass (N >> f words) the words of
// one residue class mod t meet only each other. A thread block holding
// kClasses consecutive classes (4096 words) runs the first pass's columns
// on them, trades the words through shared memory and runs the second
// pass's columns: the words cross DRAM once for both passes. The stages and
// twiddles are the passes' own (SPEC section 2's factorization is
// unchanged) and the words cross shared memory in their stored form, so the
// result is the two launches' word for word. A host function as well, so
// the emulation test runs it thread by thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cuda/global_pass.cuh"

namespace fhe::ntt::gpu {

// In the first pass's block ("lower": the pass of the earlier stages),
// class c's words lie at c + m t, m < 2^2G. The lower pass's column j
// (< 2^G) of the class holds m = j + k 2^G (its stride t 2^G), the upper
// pass's column j holds m = k + j 2^G (stride t) and lies in upper block
// 2^G b + j, where b is the lower pass's block.
template <int G>
struct PassPairBlock {
  static_assert(G >= 2 && G <= kMaxGlobalPassStages, "the pass-pair kernels pair passes of 2 to 4 stages");
  static constexpr int kSpan = 1 << G;
  static constexpr int kColumnsPerThread = kWordsPerThread >> G;
  static constexpr std::uint32_t kClasses = kPairBlockWords >> (2 * G);
  // A thread's columns share j (one pass block, one set of twiddles); the
  // threads of a run take consecutive classes, so a warp's accesses to one
  // word of its columns cover runs of 16 or 32 words (128 or 256 bytes).
  static constexpr std::uint32_t kRun = kClasses / kColumnsPerThread;
  static_assert(kRun * kSpan == kPairBlockThreads, "a run of threads per column index j");
  static constexpr std::uint32_t class_of(std::uint32_t thread, int l) { return thread % kRun + l * kRun; }
  static constexpr std::uint32_t column_of(std::uint32_t thread) { return thread / kRun; }
  // 16 pad words every 256 keep the upper pass's half-warps (j apart, 256
  // slots when G = 4) on different banks for 32-bit words.
  static constexpr std::uint32_t slot(std::uint32_t cls, std::uint32_t m) {
    const std::uint32_t s = m * kClasses + cls;
    return s + ((s >> 8) << 4);
  }
};

// Where a pass-pair block works: its data row, its lower-pass block and
// its first class. Blocks run along a row: 2^(logN - 12) of them, each
// lower block's classes split among 2^(logN - f - 12) blocks.
struct PassPairPlace {
  std::uint32_t row;
  std::uint32_t lower_block;
  std::uint32_t first_class;
};

template <int G>
FHE_HD PassPairPlace locate_pass_pair_block(std::uint32_t log_n, std::uint32_t lower_first_stage, std::uint32_t row,
                                            std::uint32_t block_in_row) {
  const std::uint32_t blocks_per_lower_log = log_n - lower_first_stage - kPairBlockWordsLog;
  return {row, block_in_row >> blocks_per_lower_log,
          (block_in_row & ((1u << blocks_per_lower_log) - 1u)) * PassPairBlock<G>::kClasses};
}

// One pass of the pair on the block's words: the first (First: from global
// memory into shared) or the second (from shared memory out to global).
// Forward: the lower pass, then the upper; inverse: the upper, then the
// lower, whose stage 0 (the transform's last) folds in N^-1. A forward's
// lifted first pass (Lifted, PassArgs::lift: the rescale) loads the same
// offsets of its batch block's source row, lifted to the row's prime, by
// the lifted global pass's own loads.
template <typename Word, int G, bool Forward, bool First, bool Lifted = false>
FHE_HD void pass_pair_phase(const PassArgs<Word>& pass, Word* shared, const PassPairPlace& place,
                            std::uint32_t thread) {
  static_assert(!Lifted || (Forward && First), "only a forward's first pass lifts its input");
  using Block = PassPairBlock<G>;
  constexpr bool kUpper = Forward != First;
  constexpr int kColumns = Block::kColumnsPerThread;
  const std::uint32_t lower_first_stage = pass.first_stage - (kUpper ? G : 0);
  const std::uint32_t t_log = pass.log_n - lower_first_stage - 2 * G;
  const std::uint32_t j = Block::column_of(thread);
  const std::uint32_t pass_block = kUpper ? (place.lower_block << G) + j : place.lower_block;
  std::uint64_t* words = pass.data + (static_cast<std::size_t>(place.row) << pass.log_n) +
                         (static_cast<std::size_t>(place.lower_block) << (pass.log_n - lower_first_stage));
  const PassColumn col{words, t_log + (kUpper ? 0 : G), pass_block, plan_row_of(pass, place.row)};
  const RowConstants<Word> c = pass.constants[col.plan_row];
  // A lifted load takes the lifted global pass's (pass_words, input_word);
  // the others read `words` (fewer registers than its index form here).
  const PassWords lifted = Lifted ? pass_words<true>(pass, place.row, col, c.q) : PassWords{};
  const auto input = [&](std::size_t i) -> std::uint64_t {
    if constexpr (Lifted) return input_word<true>(pass, lifted, i);
    return words[i];
  };
  // Word k of column l: its class and its multiple m of t.
  const auto m_of = [&](int k) { return kUpper ? k + (j << G) : j + (k << G); };
  const auto at = [&](int l, int k) {
    return place.first_class + Block::class_of(thread, l) + (static_cast<std::size_t>(m_of(k)) << t_log);
  };
  const auto slot = [&](int l, int k) { return Block::slot(Block::class_of(thread, l), m_of(k)); };
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, G> tw;
    load_pass_twiddles<Word, G>(tw, pass, col, ar);
    if constexpr (First) wait_for_previous_kernel();  // the data is the previous kernel's output
    Word v[kColumns][Block::kSpan];
#pragma unroll
    for (int l = 0; l < kColumns; ++l) {
#pragma unroll
      for (int k = 0; k < Block::kSpan; ++k) {
        v[l][k] = ar.loaded(First ? input(at(l, k)) : shared[slot(l, k)]);
      }
    }
    // The pass holding stage 0 is the inverse's last: N^-1 is folded in there.
    const bool scale_stage0 = !Forward && pass.first_stage == 0;
    pass_stages_in_registers<Forward, G, kColumns>(v, tw, ar, c, scale_stage0);
#pragma unroll
    for (int l = 0; l < kColumns; ++l) {
#pragma unroll
      for (int k = 0; k < Block::kSpan; ++k) {
        if constexpr (First) {
          shared[slot(l, k)] = static_cast<Word>(ar.stored(v[l][k], false));
        } else {
          words[at(l, k)] = ar.stored(v[l][k], scale_stage0);
        }
      }
    }
  });
}

}  // namespace fhe::ntt::gpu
