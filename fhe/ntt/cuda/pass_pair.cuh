// Two or three global passes, the next starting where one ends (forward
// stages f .. f+S-1 together), in one launch without a cluster. Every
// butterfly of those stages pairs words a multiple of t = N >> (f + S)
// apart, so inside a block of the first pass (N >> f words) the words of
// one residue class mod t meet only each other. A thread block holding
// kClasses = 4096 / 2^S consecutive classes (4096 words) runs the first
// pass's columns on them, trades the words through shared memory, runs the
// next pass's columns, and so on: the words cross DRAM once for all the
// passes. The stages and twiddles are the passes' own (SPEC section 2's
// factorization is unchanged) and the words cross shared memory in their
// stored form, so the result is the separate launches' word for word. Host
// functions as well, so the emulation test runs them thread by thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cuda/global_pass.cuh"

namespace fhe::ntt::gpu {

// In the block of the first pass in stage order ("lower"), class c's
// words lie at c + m t, m < 2^S. The pass of G stages starting Offset
// stages after the lower pass's first works on columns of 2^G words,
// m = hi 2^(S-Offset) + k 2^(S-Offset-G) + lo (k < 2^G); its column
// (hi, lo) lies in the pass's block 2^Offset b + hi, where b is the lower
// pass's block. A pair of G-stage passes: the lower's column j holds
// m = j + k 2^G, the upper's m = k + j 2^G.
template <int S, int G, int Offset>
struct PassBlockColumns {
  static_assert(G >= 2 && G <= kMaxGlobalPassStages, "the pass kernels run passes of 2 to 4 stages");
  static_assert(Offset >= 0 && Offset + G <= S && S - G <= 8, "a pass inside the block's stages");
  static constexpr int kSpan = 1 << G;
  static constexpr int kColumnsPerThread = kWordsPerThread >> G;
  static constexpr std::uint32_t kClasses = kPairBlockWords >> S;
  static constexpr int kLowBits = S - Offset - G;
  // A thread's columns share (hi, lo) (one pass block, one set of
  // twiddles); the threads of a run take consecutive classes, so a warp's
  // accesses to one word of its columns cover runs of kRun words (16 or 32
  // for a pair of 4- or 3-stage passes, 8 and 4 for 3- and 2-stage passes
  // of eight stages).
  static constexpr std::uint32_t kRun = kClasses / kColumnsPerThread;
  static_assert(kRun << (S - G) == kPairBlockThreads, "a run of threads per column index (hi, lo)");
  static constexpr std::uint32_t column_of(std::uint32_t thread) { return thread / kRun; }
  // Runs under 16 words (eight stages in passes under four: the triple,
  // the quad) leave a warp several columns of one run index; their slots
  // lie a multiple of 128 bytes apart, on the same banks. There a column
  // takes its runs in turn from its own index on, so the warp's columns
  // spread over the bank row: 2 wavefronts of 64-bit words instead of 4-8
  // (pass_block_banks_test). The order is free: a thread's columns share
  // their twiddles and never meet.
  static constexpr std::uint32_t class_of(std::uint32_t thread, int l) {
    const std::uint32_t turn = kRun < 16 ? (static_cast<std::uint32_t>(l) + column_of(thread)) % kColumnsPerThread
                                         : static_cast<std::uint32_t>(l);
    return thread % kRun + turn * kRun;
  }
  // The first pass's columns have no hi (column < 2^(S-G) = 2^kLowBits):
  // said so, the pair's indices compile as before the pass groups existed.
  static constexpr std::uint32_t hi_of(std::uint32_t column) { return Offset == 0 ? 0 : column >> kLowBits; }
  static constexpr std::uint32_t m_of(std::uint32_t column, int k) {
    const std::uint32_t lo = Offset == 0 ? column : column & ((1u << kLowBits) - 1u);
    return (hi_of(column) << (S - Offset)) + (static_cast<std::uint32_t>(k) << kLowBits) + lo;
  }
  // 16 pad words every 256 keep the upper pass's half-warps (j apart, 256
  // slots when G = 4) of a pair on different banks for 32-bit words.
  static constexpr std::uint32_t slot(std::uint32_t cls, std::uint32_t m) {
    const std::uint32_t s = m * kClasses + cls;
    return s + ((s >> 8) << 4);
  }
  // The slot of word k of a column whose word 0 lies in `first`: word 0's
  // plus k's own part. In s = m kClasses + cls the thread's bits (cls, and
  // hi and lo of m) and k's (k << kLowBits) never overlap, so the pad
  // (s >> 8) << 4 splits the same way and k's part is a constant: one add
  // a slot where the whole pad took three or four instructions.
  static constexpr std::uint32_t slot_of_word(std::uint32_t first, int k) {
    return first + slot(0, static_cast<std::uint32_t>(k) << kLowBits);
  }
};

// The default preset's log N (every logN-16 preset's). Pass blocks whose
// lower pass starts at stage 0 of such a transform (the forward's first
// pair or group, the inverse's last pair) run kernels compiled with log N
// and that stage as constants: their words' offsets fold into the loads
// and their block is the whole row (SASS of the 64-bit G4 pair's FP64
// path: forward 1152 -> 1032 instructions, inverse 1864 -> 1216).
inline constexpr std::uint32_t kConstantPassLogN = 16;

// The first stage of a pair's lower pass: the forward's first pass's, the
// inverse's second's.
template <typename Word>
FHE_HD std::uint32_t pair_lower_first_stage(const PassArgs<Word>& first, const PassArgs<Word>& second, bool forward) {
  return forward ? first.first_stage : second.first_stage;
}

// Whether a pass block's launch takes the constant-log-N kernel; the
// kernels' LogN template argument is then kConstantPassLogN, else 0 (log N
// and the stage from the launch's arguments).
FHE_HD constexpr bool constant_pass_shape(std::uint32_t log_n, std::uint32_t lower_first_stage) {
  return log_n == kConstantPassLogN && lower_first_stage == 0;
}

// Where a block of paired (or grouped) passes works: its data row, its
// lower-pass block and its first class. Blocks run along a row:
// 2^(logN - 12) of them, each lower block's classes split among
// 2^(logN - f - 12) blocks.
struct PassPairPlace {
  std::uint32_t row;
  std::uint32_t lower_block;
  std::uint32_t first_class;
};

// S: the stages of all the block's passes together. LogN as the kernels'
// (constant_pass_shape's launches give log_n = LogN and stage 0: said so,
// the compiler folds them).
template <int S, std::uint32_t LogN = 0>
FHE_HD PassPairPlace locate_pass_block(std::uint32_t log_n, std::uint32_t lower_first_stage, std::uint32_t row,
                                       std::uint32_t block_in_row) {
  if constexpr (LogN != 0) {
    log_n = LogN;
    lower_first_stage = 0;
  }
  const std::uint32_t blocks_per_lower_log = log_n - lower_first_stage - kPairBlockWordsLog;
  return {row, block_in_row >> blocks_per_lower_log,
          (block_in_row & ((1u << blocks_per_lower_log) - 1u)) * (kPairBlockWords >> S)};
}

// One pass of the block, of G stages starting Offset stages after the
// lower pass's first (S the block's stages): from global memory into shared
// (FromGlobal: the block's first phase), from shared memory out to global
// (ToGlobal: its last), or from shared memory back to it (a middle pass:
// each thread reads and writes its own columns' slots). Forward: the passes
// in stage order; inverse: in reverse, the lower pass's stage 0 (the
// transform's last) folding in N^-1. A forward's lifted first pass (Lifted,
// PassArgs::lift: the rescale, the ModUp's one-prime digits) loads the same
// offsets of its batch block's source row, lifted to the row's prime, by
// the lifted global pass's own loads; its unlifted blocks run as unlifted.
// LogN: 0, or kConstantPassLogN where constant_pass_shape holds.
template <typename Word, int S, int G, int Offset, bool Forward, bool FromGlobal, bool ToGlobal, bool Lifted = false,
          std::uint32_t LogN = 0>
FHE_HD void pass_block_phase(const PassArgs<Word>& pass, Word* shared, const PassPairPlace& place,
                             std::uint32_t thread) {
  static_assert(!Lifted || (Forward && FromGlobal), "only a forward's first pass lifts its input");
  static_assert(LogN == 0 || LogN == kConstantPassLogN, "one constant log N");
  if constexpr (Lifted) {
    if (!lifts_row(pass, place.row)) {
      return pass_block_phase<Word, S, G, Offset, Forward, FromGlobal, ToGlobal, false, LogN>(pass, shared, place,
                                                                                            thread);
    }
  }
  using Block = PassBlockColumns<S, G, Offset>;
  constexpr int kColumns = Block::kColumnsPerThread;
  constexpr bool kConstant = LogN != 0;
  // Constant: the lower pass starts at stage 0, so its one block is the row.
  const std::uint32_t log_n = kConstant ? LogN : pass.log_n;
  const std::uint32_t lower_first_stage = kConstant ? 0 : pass.first_stage - Offset;
  const std::uint32_t lower_block = kConstant ? 0 : place.lower_block;
  const std::uint32_t t_log = log_n - lower_first_stage - S;
  const std::uint32_t column = Block::column_of(thread);
  const std::uint32_t pass_block = (lower_block << Offset) + Block::hi_of(column);
  std::uint64_t* words = pass.data + (static_cast<std::size_t>(place.row) << log_n) +
                         (static_cast<std::size_t>(lower_block) << (log_n - lower_first_stage));
  const PassColumn col{words, t_log + Block::kLowBits, pass_block, plan_row_of(pass, place.row)};
  const RowConstants<Word> c = pass.constants[col.plan_row];
  // A lifted load takes the lifted global pass's (pass_words, input_word);
  // the others read `words` (fewer registers than its index form here).
  const PassWords lifted = Lifted ? pass_words<true>(pass, place.row, col, c.q) : PassWords{};
  const auto input = [&](std::size_t i) -> std::uint64_t {
    if constexpr (Lifted) return input_word<true>(pass, lifted, i);
    return words[i];
  };
  // Word k of column l: its class and its multiple m of t. m is linear in
  // k, so the word lies k * step after the column's word 0, an offset below
  // N in 32 bits: one multiply-add an access, where shifting each m by the
  // launch's t_log in 64 bits took about six instructions.
  const std::uint32_t step = 1u << (t_log + Block::kLowBits);
  const auto at = [&](int l, int k) {
    const std::size_t first = place.first_class + Block::class_of(thread, l) +
                              (static_cast<std::size_t>(Block::m_of(column, 0)) << t_log);
    return first + static_cast<std::uint32_t>(k) * step;
  };
  const auto slot = [&](int l, int k) {
    return Block::slot_of_word(Block::slot(Block::class_of(thread, l), Block::m_of(column, 0)), k);
  };
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, G> tw;
    load_pass_twiddles<Word, G>(tw, pass, col, ar);
    if constexpr (FromGlobal) wait_for_previous_kernel();  // the data is the previous kernel's output
    Word v[kColumns][Block::kSpan];
#pragma unroll
    for (int l = 0; l < kColumns; ++l) {
#pragma unroll
      for (int k = 0; k < Block::kSpan; ++k) {
        v[l][k] = ar.loaded(FromGlobal ? input(at(l, k)) : shared[slot(l, k)]);
      }
    }
    // The pass holding stage 0 is the inverse's last: N^-1 is folded in there.
    const bool scale_stage0 = !Forward && (kConstant ? Offset == 0 : pass.first_stage == 0);
    pass_stages_in_registers<Forward, G, kColumns>(v, tw, ar, c, scale_stage0);
#pragma unroll
    for (int l = 0; l < kColumns; ++l) {
#pragma unroll
      for (int k = 0; k < Block::kSpan; ++k) {
        if constexpr (ToGlobal) {
          words[at(l, k)] = ar.stored(v[l][k], scale_stage0);
        } else {
          shared[slot(l, k)] = static_cast<Word>(ar.stored(v[l][k], false));
        }
      }
    }
  });
}

// One pass of a pair of G-stage passes: the first (First: from global
// memory into shared) or the second (from shared memory out to global).
// Forward: the lower pass, then the upper; inverse: the upper, then the
// lower.
template <typename Word, int G, bool Forward, bool First, bool Lifted = false, std::uint32_t LogN = 0>
FHE_HD void pass_pair_phase(const PassArgs<Word>& pass, Word* shared, const PassPairPlace& place,
                            std::uint32_t thread) {
  constexpr int kOffset = Forward != First ? G : 0;
  pass_block_phase<Word, 2 * G, G, kOffset, Forward, First, !First, Lifted, LogN>(pass, shared, place, thread);
}

// The passes of a forward pass group (kPassGroupShapes[Shape]), phase by
// phase in launch order: the first from global memory, the last to it.
// The stages of a group's first `passes` passes.
FHE_HD constexpr int pass_group_stages(int shape, int passes) {
  int stages = 0;
  for (int p = 0; p < passes; ++p) stages += kPassGroupShapes[shape].stages[p];
  return stages;
}

template <int Shape>
inline constexpr int kPassGroupSpan = pass_group_stages(Shape, kPassGroupShapes[Shape].count);

// Lifted: the first phase lifts its input (PassArgs::lift), as a lifted
// pair's.
template <typename Word, int Shape, int Phase, std::uint32_t LogN = 0, bool Lifted = false>
FHE_HD void pass_group_phase(const PassArgs<Word>& pass, Word* shared, const PassPairPlace& place,
                             std::uint32_t thread) {
  constexpr PassGroupShape kShape = kPassGroupShapes[Shape];
  pass_block_phase<Word, kPassGroupSpan<Shape>, kShape.stages[Phase], pass_group_stages(Shape, Phase), true,
                   Phase == 0, Phase == kShape.count - 1, Lifted && Phase == 0, LogN>(pass, shared, place, thread);
}

}  // namespace fhe::ntt::gpu
