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
#include "fhe/ntt/cuda/row_arith.cuh"

namespace fhe::ntt::gpu {

// The thread layout of a pass (kernel_params.h): Split halves the words a
// thread holds (launches with few warps an SM).
template <typename Word, int G, bool Split>
inline constexpr GlobalPassLayout kGlobalPassLayout = global_pass_layout(G, sizeof(Word), Split);

template <typename Word, int G, bool Split = false>
FHE_HD std::uint32_t global_pass_items_per_row(std::uint32_t log_n) {
  return 1u << global_pass_items_log(static_cast<int>(log_n), G, kGlobalPassLayout<Word, G, Split>);
}

// Where an item's words lie: word k of lane l at base + l + k * 2^stride_log,
// and the block (group at the pass's first stage) they belong to.
struct PassColumn {
  std::uint64_t* base;
  std::uint32_t stride_log;
  std::uint32_t block;
  std::uint32_t plan_row;
};

template <typename Word, int G>
FHE_HD PassColumn locate_pass_column(const PassArgs<Word>& a, std::uint32_t row, std::uint32_t offset_item,
                                     int lanes) {
  const std::uint32_t lanes_log = lanes == 2 ? 1 : 0;
  const std::uint32_t stride_log = a.log_n - a.first_stage - G;  // t = 2^stride_log >= 2
  const std::uint32_t item_log = stride_log - lanes_log;        // items per block
  const std::uint32_t block = offset_item >> item_log;
  const std::uint32_t offset = (offset_item & ((1u << item_log) - 1u)) << lanes_log;
  std::uint64_t* base = a.data + (static_cast<std::size_t>(row) << a.log_n) +
                        (static_cast<std::size_t>(block) << (a.log_n - a.first_stage)) + offset;
  return {base, stride_log, block, plan_row_of(a, row)};
}

// Where a pass item's words lie, as indices into the launch's arrays, whose
// addresses the kernel takes from its parameters rather than holding them
// in registers (session 29: the 64-bit 4-stage forward in 96 registers
// instead of 128, and in 80 without spills, so its throughput launches run
// 3 blocks an SM): word k of lane l at data[at + l + k * 2^stride_log]. On a
// lifted first launch (PassArgs::lift) a lifted block's words come from
// lift.rows[from + ...], the same column of its source row, lifted to the
// row's prime as they are loaded. The kernels take the lift as a template
// flag (Lifted), so every other pass compiles as if it did not exist; a
// Lifted pass runs its unlifted blocks (lifts_row false) by the unlifted
// code, chosen once a block.
struct PassWords {
  std::size_t at, from;
  CentredLiftRow lift;
  std::uint64_t q;
};

// Whether data row `row` of a lifted launch lifts its input (its batch
// block is one of the lift's).
template <typename Word>
FHE_HD bool lifts_row(const PassArgs<Word>& a, std::uint32_t row) {
  return a.batch_rows.quotient(row) >= a.lift.first_block;
}

template <bool Lifted, typename Word>
FHE_HD PassWords pass_words(const PassArgs<Word>& a, std::uint32_t row, const PassColumn& col, Word q) {
  const auto at = static_cast<std::size_t>(col.base - a.data);
  PassWords w{at, at, {}, 0};
  if constexpr (Lifted) {
    const std::uint32_t block = a.batch_rows.quotient(row);
    const std::uint32_t lifted = block - a.lift.first_block;
    w.from = (static_cast<std::size_t>(lifted) << a.log_n) + (at & ((std::size_t{1} << a.log_n) - 1));
    w.lift = a.lift.constants[lifted * a.lift.constants_stride + (row - block * a.batch_rows.value)];
    w.q = q;
  }
  return w;
}

// The words at offset i (and i + 1) of a pass's input, as the pass takes them.
template <bool Lifted, typename Word>
FHE_HD std::uint64_t input_word(const PassArgs<Word>& a, const PassWords& w, std::size_t i) {
  if constexpr (Lifted) return centred_lift(a.lift.rows[w.from + i], w.lift, w.q);
  return a.data[w.at + i];
}

template <bool Lifted, typename Word>
FHE_HD void input_two(const PassArgs<Word>& a, const PassWords& w, std::size_t i, std::uint64_t& first,
                      std::uint64_t& second) {
  if constexpr (Lifted) {
    load_two(a.lift.rows + w.from + i, first, second);
    first = centred_lift(first, w.lift, w.q);
    second = centred_lift(second, w.lift, w.q);
  } else {
    load_two(a.data + w.at + i, first, second);
  }
}

// The twiddles of stages 0..Count-1 of the pass for its block. Every global
// pass (one group or one digit) has them side by side; make_pass_launches
// checks it.
template <typename Word>
FHE_HD const TwiddlePair<Word>* pass_twiddles(const PassArgs<Word>& a, const PassColumn& col) {
  return a.twiddles + static_cast<std::size_t>(col.plan_row) * a.table_stride;
}

template <typename Word, int Count, typename Arith>
FHE_HD void load_pass_twiddles(StageTwiddles<Word, Count>& tw, const PassArgs<Word>& a, const PassColumn& col,
                               const Arith& ar) {
  load_stage_twiddles<Count, 0, true>(tw, ar, pass_twiddles(a, col), [&](int r, int group) {
    return twiddle_index(a.address, r, (col.block << r) + group);
  });
}

// The pass's G stages on the words v[lane][k] of Lanes columns that share
// the twiddles `tw`; the inverse's stage 0 with N^-1 folded in where the
// pass holds it (`scale_stage0`: the inverse's last pass).
template <bool Forward, int G, int Lanes, typename Word, typename Arith>
FHE_HD void pass_stages_in_registers(Word (&v)[Lanes][1 << G], const StageTwiddles<Word, G>& tw, const Arith& ar,
                                     const RowConstants<Word>& c, bool scale_stage0) {
  for_each_stage<G, Forward>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if (r == 0 && scale_stage0) {
      register_stage0_scaled<G, Lanes>(v, ar, c);
      return;
    }
    register_stage<Forward, G, r, Lanes, round_reduces_sums(r, 0, G)>(
        v, ar, [&](int group) { return tw[(1 << r) - 1 + group]; });
  });
}

template <typename Word, int G, bool Forward, bool Split = false, bool Lifted = false>
FHE_HD void global_pass_item(const PassArgs<Word>& a, std::uint32_t row, std::uint32_t item) {
  static_assert(!kGlobalPassLayout<Word, G, Split>.paired, "paired passes run paired_pass_send/receive");
  static_assert(Forward || !Lifted, "only a forward transform is lifted");
  if constexpr (Lifted) {
    if (!lifts_row(a, row)) return global_pass_item<Word, G, Forward, Split, false>(a, row, item);
  }
  if (skipped_row(a, row)) return;
  constexpr int kSpan = 1 << G;
  constexpr int kLanes = kGlobalPassLayout<Word, G, Split>.lanes;
  const PassColumn col = locate_pass_column<Word, G>(a, row, item, kLanes);
  const RowConstants<Word> c = a.constants[col.plan_row];
  with_row_arith(c, [&](const auto& ar) {
    StageTwiddles<Word, G> tw;
    load_pass_twiddles<Word, G>(tw, a, col, ar);

    const PassWords words = pass_words<Lifted>(a, row, col, c.q);
    wait_for_previous_kernel();  // the data is the previous pass's output
    Word v[kLanes][kSpan];  // v[lane][k]: the word at offset j + lane, k strides on
#pragma unroll
    for (int k = 0; k < kSpan; ++k) {
      const std::size_t i = static_cast<std::size_t>(k) << col.stride_log;
      if constexpr (kLanes == 2) {
        std::uint64_t first, second;
        input_two<Lifted>(a, words, i, first, second);
        v[0][k] = ar.loaded(first);
        v[1][k] = ar.loaded(second);
      } else {
        v[0][k] = ar.loaded(input_word<Lifted>(a, words, i));
      }
    }

    // The pass holding stage 0 is the inverse's last: N^-1 is folded in there.
    const bool scale_stage0 = !Forward && a.first_stage == 0;
    pass_stages_in_registers<Forward, G, kLanes>(v, tw, ar, c, scale_stage0);

#pragma unroll
    for (int k = 0; k < kSpan; ++k) {
      const std::size_t i = words.at + (static_cast<std::size_t>(k) << col.stride_log);
      if constexpr (kLanes == 2) {
        store_two(a.data + i, ar.stored(v[0][k], scale_stage0), ar.stored(v[1][k], scale_stage0));
      } else {
        a.data[i] = ar.stored(v[0][k], scale_stage0);
      }
    }
  });
}

// The paired pass: threads 2i and 2i+1 (h = 0, 1) share an offset's 2^G
// words. In the "parity" layout thread h holds words k = 2j + h, where
// stages 0..G-2 (pairs at distance >= 2) are local; in the "pair" layout it
// holds k = 4m + 2h + e, where stage G-1 (pairs k, k+1, group 2m + h) is.
// Between them each thread keeps v[2m + h] and trades v[2m + 1 - h]. The
// forward runs parity -> pair, the inverse pair -> parity; the trade goes
// through shared memory (`mailbox`, a quarter of the words per thread) with
// a block barrier between the two halves, so the host emulation can run them
// thread by thread like the region's phases.
template <typename Word, int G>
struct PairedPassState {
  static constexpr int kQuarter = 1 << (G - 2);
  bool active;
  std::uint32_t h;
  PassColumn col;
  PassWords words;
  RowConstants<Word> c;
  Word keep[kQuarter];
  StageTwiddles<Word, G - 1> local;        // stages 0..G-2
  TwiddlePair<Word> cross[kQuarter];       // stage G-1, groups 2m + h
};

template <typename Word, int G, bool Forward, typename Arith>
FHE_HD void paired_stages_local(Word (&v)[1][1 << (G - 1)], const PassArgs<Word>& a,
                                const PairedPassState<Word, G>& st, const Arith& ar) {
  const bool scale_stage0 = !Forward && a.first_stage == 0;
  for_each_stage<G - 1, Forward>([&](auto stage) {
    constexpr int r = decltype(stage)::value;
    if (r == 0 && scale_stage0) {
      register_stage0_scaled<G - 1, 1>(v, ar, st.c);
      return;
    }
    register_stage<Forward, G - 1, r, 1, round_reduces_sums(r, 0, G)>(
        v, ar, [&](int group) { return st.local[(1 << r) - 1 + group]; });
  });
}

// Stage G-1 (the inverse runs it first: no reduction of its sums).
template <bool Forward, typename Word, typename Arith>
FHE_HD void paired_stage_cross(Word& first, Word& second, TwiddlePair<Word> w, const Arith& ar) {
  if constexpr (Forward) {
    ar.forward(first, second, w);
  } else {
    ar.template inverse<false>(first, second, w);
  }
}

// First half: twiddles, the data, the stages before the trade; posts the
// traded words.
template <typename Word, int G, bool Forward, bool Lifted = false>
FHE_HD void paired_pass_send(const PassArgs<Word>& a, std::uint32_t row, std::uint32_t item,
                             PairedPassState<Word, G>& st, Word* mailbox, std::uint32_t block_threads,
                             std::uint32_t thread) {
  static_assert(Forward || !Lifted, "only a forward transform is lifted");
  if constexpr (Lifted) {
    if (!lifts_row(a, row)) {
      return paired_pass_send<Word, G, Forward, false>(a, row, item, st, mailbox, block_threads, thread);
    }
  }
  constexpr int kQuarter = PairedPassState<Word, G>::kQuarter;
  st.active = item < global_pass_items_per_row<Word, G, true>(a.log_n) && !skipped_row(a, row);
  if (!st.active) return;
  st.h = item & 1u;
  st.col = locate_pass_column<Word, G>(a, row, item >> 1, 1);
  st.c = a.constants[st.col.plan_row];
  with_row_arith(st.c, [&](const auto& ar) {
    load_pass_twiddles<Word, G - 1>(st.local, a, st.col, ar);
    const std::uint32_t cross = twiddle_index(a.address, G - 1, (st.col.block << (G - 1)) + st.h);
#pragma unroll
    for (int m = 0; m < kQuarter; ++m) {
      // In 64 bits, as load_stage_twiddles adds its offsets.
      st.cross[m] = ar.twiddle(pass_twiddles(a, st.col), std::size_t{cross} + 2 * m);
    }

    st.words = pass_words<Lifted>(a, row, st.col, st.c.q);
    wait_for_previous_kernel();  // the data is the previous pass's output
    const auto index = [&](int k) { return static_cast<std::size_t>(k) << st.col.stride_log; };
    const auto at = [&](int k) { return st.col.base + index(k); };
    Word post[kQuarter];
    if constexpr (Forward) {
      Word v[1][2 * kQuarter];
#pragma unroll
      for (int j = 0; j < 2 * kQuarter; ++j) {
        v[0][j] = ar.loaded(input_word<Lifted>(a, st.words, index(2 * j + static_cast<int>(st.h))));
      }
      paired_stages_local<Word, G, true>(v, a, st, ar);
#pragma unroll
      for (int m = 0; m < kQuarter; ++m) {
        st.keep[m] = st.h ? v[0][2 * m + 1] : v[0][2 * m];
        post[m] = st.h ? v[0][2 * m] : v[0][2 * m + 1];
      }
    } else {
#pragma unroll
      for (int m = 0; m < kQuarter; ++m) {
        const int k = 4 * m + 2 * static_cast<int>(st.h);
        Word first = ar.loaded(*at(k)), second = ar.loaded(*at(k + 1));
        paired_stage_cross<false>(first, second, st.cross[m], ar);
        st.keep[m] = st.h ? second : first;
        post[m] = st.h ? first : second;
      }
    }
#pragma unroll
    for (int m = 0; m < kQuarter; ++m) mailbox[m * block_threads + thread] = post[m];
  });
}

// Second half (after the barrier): the partner's words, the stages after
// the trade, the stores.
template <typename Word, int G, bool Forward>
FHE_HD void paired_pass_receive(const PassArgs<Word>& a, PairedPassState<Word, G>& st, const Word* mailbox,
                                std::uint32_t block_threads, std::uint32_t thread) {
  constexpr int kQuarter = PairedPassState<Word, G>::kQuarter;
  if (!st.active) return;
  with_row_arith(st.c, [&](const auto& ar) {
    const auto at = [&](int k) { return st.col.base + (static_cast<std::size_t>(k) << st.col.stride_log); };
    if constexpr (Forward) {
#pragma unroll
      for (int m = 0; m < kQuarter; ++m) {
        const Word got = mailbox[m * block_threads + (thread ^ 1u)];
        Word first = st.h ? got : st.keep[m], second = st.h ? st.keep[m] : got;
        paired_stage_cross<true>(first, second, st.cross[m], ar);
        const std::size_t i = st.words.at + (static_cast<std::size_t>(4 * m + 2 * static_cast<int>(st.h))
                                             << st.col.stride_log);
        a.data[i] = ar.stored(first, false);
        a.data[i + (std::size_t{1} << st.col.stride_log)] = ar.stored(second, false);
      }
    } else {
      Word v[1][2 * kQuarter];
#pragma unroll
      for (int m = 0; m < kQuarter; ++m) {
        const Word got = mailbox[m * block_threads + (thread ^ 1u)];
        v[0][2 * m] = st.h ? got : st.keep[m];
        v[0][2 * m + 1] = st.h ? st.keep[m] : got;
      }
      paired_stages_local<Word, G, false>(v, a, st, ar);
      const bool final = a.first_stage == 0;
#pragma unroll
      for (int j = 0; j < 2 * kQuarter; ++j) *at(2 * j + static_cast<int>(st.h)) = ar.stored(v[0][j], final);
    }
  });
}

}  // namespace fhe::ntt::gpu
