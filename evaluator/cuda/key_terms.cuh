// Device pieces of the key-switching kernels, shared by eval_kernels.cu and
// the fused ModUp + key product (region_key_product.cu): the key inner
// product, one rotation term, and where an extended output's rows go. The
// digits' words come through a loader, global memory (the hoisted
// decomposition) or shared memory (the fused kernel's tiles), so both paths
// compute the same words by the same code. FHE_HD: the host emulation test
// of the fused kernel runs them too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "evaluator/cuda/carry_chains.cuh"
#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/switch_key_layout.h"

namespace fhe::cuda::terms {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

FHE_HD u64 reduce128(u128 x, const DeviceModulus& m) {
  return reduce_wide<u64>(static_cast<u64>(x >> 64), static_cast<u64>(x), m);
}

// A read-only global word: through the non-coherent path on the device.
FHE_HD u64 load_read_only(const u64* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// A digit's (b, a) at one (row, k) (switch_key_layout.h), from the
// digit's bytes at the place's `first` and `second`: a wide row's two words
// or a narrow row's two planes (one 8-byte load: b's and a's low 32 bits;
// one 4-byte load: their high 16 bits). KeyPair<false> holds two words (a
// narrow row's widened as loaded); KeyPair<true> a narrow row's planes as
// they lie (Raw), for SplitProductSums.
template <bool Raw>
struct KeyPair {
  u64 b, a;
};
template <>
struct KeyPair<true> {
  std::uint32_t b_low, a_low, highs;  // highs: b's in bits 0-15, a's in 16-31
};

// Key words are read once: cached streaming (evict-first in L1 and L2,
// non-coherent), so the hoisted digits and the twiddles the other blocks
// re-read stay. On the H200 against __ldg (session 35, A/B):
// sum16_lazy_moddown -5.6 %, a level-33 key switch -2.8 %, rotate_many[4]
// -0.8 %, level 0 unchanged; the lazy diagonal matvec's suite 16.58 ->
// 15.50 ms.
#if defined(__CUDA_ARCH__)
__device__ inline uint2 load_streamed_pair(const void* p) {
  uint2 v;
  asm("ld.global.cs.nc.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
__device__ inline std::uint32_t load_streamed_word(const void* p) {
  std::uint32_t v;
  asm("ld.global.cs.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ inline u64 load_streamed_u64(const void* p) {
  u64 v;
  asm("ld.global.cs.nc.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}
#endif

template <bool Narrow, bool Raw>
FHE_HD KeyPair<Narrow && Raw> load_key_pair(const std::uint8_t* first, const std::uint8_t* second) {
  if constexpr (Narrow) {
    std::uint32_t low[2], high;
#if defined(__CUDA_ARCH__)
    const uint2 pair = load_streamed_pair(first);
    low[0] = pair.x;
    low[1] = pair.y;
    high = load_streamed_word(second);
#else
    std::memcpy(low, first, 8);
    std::memcpy(&high, second, 4);
#endif
    if constexpr (Raw) {
      return {low[0], low[1], high};
    } else {
      return {low[0] | static_cast<u64>(high & 0xffff) << 32, low[1] | static_cast<u64>(high >> 16) << 32};
    }
  } else {
    // 8-byte aligned words (digit_bytes and the wide rows' offsets are multiples of 8)
#if defined(__CUDA_ARCH__)
    return {load_streamed_u64(first), load_streamed_u64(second)};
#else
    return {load_read_only(reinterpret_cast<const u64*>(first)), load_read_only(reinterpret_cast<const u64*>(second))};
#endif
  }
}

// A 128-bit sum of 64 x 64-bit products as C++ 128-bit arithmetic: the
// interface of Sum128 (carry_chains.cuh), whose carry chains ptxas compiles
// to fewer instructions but which spilled more in the fused kernel.
struct PlainSum128 {
  u128 sum = 0;
  FHE_HD void add(u64 x, u64 y) { sum += static_cast<u128>(x) * y; }
  FHE_HD u128 joined() const { return sum; }
};

// sum_d x_d * (b_d, a_d), exact: 64 x 64 -> 128-bit products into 128-bit
// sums, as carry chains (Chained: Sum128) or as C++ 128-bit products.
template <bool Chained>
struct WideProductSums {
  std::conditional_t<Chained, Sum128, PlainSum128> b, a;
  FHE_HD void add(u64 x, const KeyPair<false>& key) {
    b.add(x, key.b);
    a.add(x, key.a);
  }
  FHE_HD void reduce(const DeviceModulus& m, u64& out_b, u64& out_a) const {
    out_b = reduce128(b.joined(), m);
    out_a = reduce128(a.joined(), m);
  }
};

// How a narrow row's products are summed: in 128-bit words
// (WideProductSums), or in 64-bit ones (SplitProductSums) by multiply-adds
// written for ptxas as 32-bit carry chains, all of them (chained) or all but
// the weight-2^24 sum's, which stay mad.wide.u32 (split: fewer registers).
enum class NarrowSums { wide, split, chained };

// The 64-bit sums' bound on the digits (SplitProductSums).
inline constexpr int kMaxSplitSumDigits = 254;

// The same for a narrow row's pair, in 64-bit sums: the digit word
// (canonical, below q < 2^48) in 24-bit halves, x = x0 + x1 2^24, times each
// key word as it lies, k = k0 + k1 2^32 (its low 32 bits and its high 16),
// by four 32 x 32 -> 64-bit multiply-adds: x0 k0 at weight 1, x1 k0 and
// (x0 2^8) k1 at 2^24, x1 k1 at 2^56. No key word is split (its high 16
// bits are one mask or shift of the pair's plane). Each sum gains less than
// 2^56 + 2^48 a digit, so it stays exact for up to kMaxSplitSumDigits digits.
// How ptxas compiles a sum over the digits depends on how the multiply-add
// is written: as mad.wide.u32 it gives about half of them a separate 64-bit
// add (IMAD.WIDE.U32 + IADD3 + IADD3.X); as a carry chain
// (carry_chains.cuh) it fuses every one into one IMAD.WIDE.U32 with its
// accumulator (Chained), but in the rotation kernels, capped at 48
// registers, three chained sums spilled 40-56 bytes; with w24's as
// mad.wide.u32 (!Chained) they do not. Per ten digits of the fused kernel's
// narrow rows: 298 instructions with 128-bit sums, 289 with all three as
// mad.wide.u32, 209 chained; per five digits of the rotation kernels' 274
// -> 250 (rotation_outputs_kernel) and 302 -> 278 (rotation_terms_kernel)
// from all three as mad.wide.u32 to !Chained (ptxas, sm_90; session 33).
template <bool Chained>
struct SplitProductSums {
  static constexpr std::uint32_t kLow24 = 0xffffff;
  // w24's multiply-adds (two a digit, into the one sum).
  FHE_HD static u64 mad_wide_w24(std::uint32_t x, std::uint32_t y, u64 acc) {
    if constexpr (!Chained) {
#if defined(__CUDA_ARCH__)
      // (Written as 64-bit products of widened operands, the compiler
      // emitted full 64-bit multiplies.)
      u64 out;
      asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(out) : "r"(x), "r"(y), "l"(acc));
      return out;
#endif
    }
    return mad_wide_chained(x, y, acc);  // on the host, the plain sum either way
  }
  // A digit word's three factors: x0, x0 2^8 (below 2^32) and x1.
  struct Halves {
    std::uint32_t low, low_shifted, high;
    FHE_HD explicit Halves(u64 x)
        : low(static_cast<std::uint32_t>(x) & kLow24),
          low_shifted(static_cast<std::uint32_t>(x) << 8),
          high(static_cast<std::uint32_t>(x >> 24)) {}
  };
  struct Sums {
    u64 w0 = 0, w24 = 0, w56 = 0;  // by weight
    FHE_HD void add(const Halves& x, std::uint32_t k0, std::uint32_t k1) {
      w0 = mad_wide_chained(x.low, k0, w0);
      w24 = mad_wide_w24(x.high, k0, mad_wide_w24(x.low_shifted, k1, w24));
      w56 = mad_wide_chained(x.high, k1, w56);
    }
    FHE_HD u128 joined() const {
      return w0 + (static_cast<u128>(w24) << 24) + (static_cast<u128>(w56) << 56);
    }
  };
  Sums b, a;
  FHE_HD void add(u64 x, const KeyPair<true>& key) {
    const Halves halves(x);
    b.add(halves, key.b_low, key.highs & 0xffff);
    a.add(halves, key.a_low, key.highs >> 16);
  }
  FHE_HD void reduce(const DeviceModulus& m, u64& out_b, u64& out_a) const {
    out_b = reduce128(b.joined(), m);
    out_a = reduce128(a.joined(), m);
  }
};

// Both key halves at (row, k) in one pass over every digit:
// sum_d digit_word(d) * key[first_digit + d][b/a][row][k], exact, one
// reduction each (Sums: how a narrow row's products are summed,
// NarrowSums). A thread issues the loads of DigitsPerRound digits together. The rotation kernels take 5 on narrow
// rows: the default preset's 10 digits at level 0 in two memory round trips
// instead of the four of the compiler's 4-way unrolled loop (4 + 4 + 1 +
// 1); rotate_many[4] -2.2 %, sum16_lazy_moddown -3.4 %, BSGS -3.5 %
// (session 6). On wide rows they take 2 (key_inner_product). Relinearization's kernel keeps 1
// (the plain loop): with 5 it went from 40 to 56 registers and
// multiply_relinearize took 2 % longer (docs/performance.md, session 6).
// The fused region + key product takes 10 from ten digits up, 5 below
// (fused_digits_per_round, region_key_product.cuh; session 18).
// Keys are read cached-streaming (load_key_pair), the digits through the
// non-coherent path; the row's storage (narrow or wide) is one test a
// thread, outside the loop.
// Two shapes of the rounds, measured on the H200 (session 11):
// - PredicatedRounds: every round of DigitsPerRound, the last one's loads
//   past the digits predicated off. The compiler then computes each load's
//   address from scratch (a 64-bit multiply) but issues all of a round's
//   loads before its products: the rotation kernels, whose digits come from
//   global memory too, need that (rotate_many[4] 1.61 ms; 1.69 with the
//   other shape, whose kernel then held fewer loads in flight: 42 instead
//   of 48 registers).
// - otherwise whole rounds unpredicated, then the digits left over one by
//   one: the addresses are a 64-bit add apart. The fused kernel, whose
//   digits are in shared memory, gains (multiply_relinearize 910 -> 872 us,
//   rotate_with_key 886 -> 843 us).
template <int DigitsPerRound, bool PredicatedRounds, bool Narrow, NarrowSums Sums, typename DigitWord>
FHE_HD void key_inner_product_at(DigitWord digit_word, int digits, const std::uint8_t* __restrict__ key,
                                 std::size_t digit_bytes, const SwitchKeyLayout::Place& at, int first_digit,
                                 const DeviceModulus& m, u64& out_b, u64& out_a) {
  constexpr bool kRaw = Narrow && Sums != NarrowSums::wide;  // the key pair as it lies
  // Wide rows' sums as carry chains in the rotation kernels' predicated
  // rounds (their wide round 117.5 -> 99.5 instructions: sum16 -0.9 %, the
  // lazy BSGS -0.4 %, rotate_many[4] -0.3 %); in the fused kernel's rounds
  // they spilled more (a level-17 rotation +1.3 %; docs/performance.md,
  // session 33).
  std::conditional_t<kRaw, SplitProductSums<Sums == NarrowSums::chained>, WideProductSums<PredicatedRounds>> sums;
  if constexpr (PredicatedRounds) {
    // Addressed in 64-bit words from the key's start (digit_bytes is a
    // multiple of 8), every load's from scratch: of the shapes tried, the
    // rotation kernels' fewest registers (64; 48 with 64-bit keys). The
    // digit's offset is a 32-bit product (key_terms_fit_32_bit_offsets,
    // cuda_workspace.h): about 5 instructions a digit fewer than a 64-bit
    // one (rotation_sums_kernel's narrow round 280 -> 253, session 70).
    const auto* key64 = reinterpret_cast<const u64*>(key);
    const auto digit_words = static_cast<std::uint32_t>(digit_bytes / 8);
    for (int first = 0; first < digits; first += DigitsPerRound) {
      u64 x[DigitsPerRound];
      KeyPair<kRaw> pairs[DigitsPerRound];
#pragma unroll
      for (int j = 0; j < DigitsPerRound; ++j) {
        const int d = first + j;
        const bool live = d < digits;
        const std::size_t digit = static_cast<std::uint32_t>(first_digit + d) * digit_words;
        x[j] = live ? digit_word(d) : 0;
        pairs[j] = {};
        if (live) {
          const auto* digit_key = reinterpret_cast<const std::uint8_t*>(key64 + digit);
          pairs[j] = load_key_pair<Narrow, kRaw>(digit_key + at.first, digit_key + at.second);
        }
      }
#pragma unroll
      for (int j = 0; j < DigitsPerRound; ++j) sums.add(x[j], pairs[j]);
    }
  } else {
    // Digit d's (b, a) at key_first and key_second + d x digit_bytes.
    const std::uint8_t* key_first = key + static_cast<std::size_t>(first_digit) * digit_bytes + at.first;
    const std::uint8_t* key_second = key + static_cast<std::size_t>(first_digit) * digit_bytes + at.second;
    int d = 0;
    for (; d + DigitsPerRound <= digits;
         d += DigitsPerRound, key_first += DigitsPerRound * digit_bytes, key_second += DigitsPerRound * digit_bytes) {
      u64 x[DigitsPerRound];
      KeyPair<kRaw> pairs[DigitsPerRound];
#pragma unroll
      for (int j = 0; j < DigitsPerRound; ++j) {
        x[j] = digit_word(d + j);
        pairs[j] = load_key_pair<Narrow, kRaw>(key_first + j * digit_bytes, key_second + j * digit_bytes);
      }
#pragma unroll
      for (int j = 0; j < DigitsPerRound; ++j) sums.add(x[j], pairs[j]);
    }
    for (; d < digits; ++d, key_first += digit_bytes, key_second += digit_bytes) {  // the digits left over
      sums.add(digit_word(d), load_key_pair<Narrow, kRaw>(key_first, key_second));
    }
  }
  sums.reduce(m, out_b, out_a);
}

// The same at word k of key row `row` (a preset row id), in the layout.
// A wide row takes WideDigitsPerRound digits a round: fewer than a narrow
// row's keeps a kernel's registers (the larger of its two paths') low
// enough for more blocks an SM, at the cost of more round trips on the few
// wide rows (the base and P primes): the rotation kernels' 5 and 2 with
// NarrowSums::split compile to 48 registers, 5 blocks an SM (session 19).
template <int DigitsPerRound, bool PredicatedRounds, int WideDigitsPerRound = DigitsPerRound,
          NarrowSums Sums = NarrowSums::wide, typename DigitWord>
FHE_HD void key_inner_product(DigitWord digit_word, int digits, const std::uint8_t* __restrict__ key,
                              const SwitchKeyLayout& layout, int first_digit, std::size_t row, std::size_t k,
                              const DeviceModulus& m, u64& out_b, u64& out_a) {
  const SwitchKeyLayout::Place at = layout.place(row, k);
  if (at.narrow) {
    key_inner_product_at<DigitsPerRound, PredicatedRounds, true, Sums>(
        digit_word, digits, key, layout.digit_bytes(), at, first_digit, m, out_b, out_a);
  } else {
    key_inner_product_at<WideDigitsPerRound, PredicatedRounds, false, NarrowSums::wide>(
        digit_word, digits, key, layout.digit_bytes(), at, first_digit, m, out_b, out_a);
  }
}

// Digit d's word at (extended row r, position source_k) of the hoisted
// decomposition (digits x rows x n in global memory), read-only for the
// kernel: through the non-coherent path, as when it was a __restrict__
// kernel parameter (a plain load made rotate_many[4] 1.2 % slower). The
// row's offset is computed in Offset: 32 bits (key_terms_fit_32_bit_offsets)
// save the rotation kernels about 8 instructions a digit (with the key's
// 32-bit offsets a narrow round of rotation_sums_kernel went 280 -> 216);
// rotation_terms_kernel keeps 64 (at its 48-register cap the 32-bit form
// spilled 92 bytes).
template <typename Offset = std::uint32_t>
struct ExtendedDigits {
  const u64* extended;
  std::size_t rows, n, r;
  FHE_HD u64 operator()(int d, std::size_t source_k) const {
    const Offset row = static_cast<Offset>(d) * static_cast<Offset>(rows) + static_cast<Offset>(r);
    return load_read_only(extended + std::size_t{row * static_cast<Offset>(n)} + source_k);
  }
};

// Where an extended output's row r goes: with a P block, Q rows stay in the
// parts and P rows go to the block (b's, then a's) so that the ModDown
// transforms them in one batch.
struct SplitRows {
  u64* b;
  u64* a;
  u64* p_block;  // null: every row in the parts
  std::size_t q_rows, rows, n;
  FHE_HD u64* row_b(std::size_t r) const {
    return p_block && r >= q_rows ? p_block + (r - q_rows) * n : b + r * n;
  }
  FHE_HD u64* row_a(std::size_t r) const {  // after b's rows - q_rows P rows
    return p_block && r >= q_rows ? p_block + ((rows - q_rows) + (r - q_rows)) * n : a + r * n;
  }
};

// What a thread of row r needs for every term.
struct TermRow {
  std::size_t n, id;
  DeviceModulus m;
  bool q_row;  // the P rows of P x (Q-row term) are zero
  u64 p, p_shoup;
};

FHE_HD TermRow term_row(const ExtendedSumArgs& s, std::size_t r) {
  TermRow row;
  row.n = std::size_t{1} << s.log_n;
  row.id = s.first_row + r;
  row.m = s.moduli[row.id];
  row.q_row = r < s.q_rows;
  row.p = row.q_row ? s.p_mod_q[row.id] : 0;
  row.p_shoup = row.q_row ? s.p_mod_q_shoup[row.id] : 0;
  return row;
}

// Term `term` at (row r, coefficient k), times its plaintext when it has
// one. With a key: the inner product of the digits at the key's permuted
// position plus P c0 there on the Q rows (a rotation), or, when not
// Galois, at the position itself and nothing else (relinearization: c0 and
// c1 join at the ModDown). Without one (step 0): (P c0, P c1) on the Q rows.
// digit_word(d, source_k) reads the digits. Galois is a template argument
// so the rotation kernels carry no test of it (with a run-time test of the
// table and c0, rotate_many[4] took 1.4 % longer). PredicatedRounds: as in
// key_inner_product.
template <int DigitsPerRound, bool PredicatedRounds, bool Galois, int WideDigitsPerRound = DigitsPerRound,
          NarrowSums Sums = NarrowSums::wide, typename DigitWord>
FHE_HD void rotation_term(const RotationTerm& term, const ExtendedSumArgs& s, const TermRow& row, std::size_t r,
                          std::size_t k, DigitWord digit_word, u64& b, u64& a) {
  const std::size_t n = row.n, i = r * n + k;
  const u64 q = row.m.value;
  b = 0;
  a = 0;
  if (term.key) {
    const std::size_t source_k = Galois ? term.table[k] : k;
    key_inner_product<DigitsPerRound, PredicatedRounds, WideDigitsPerRound, Sums>(
        [&](int d) { return digit_word(d, source_k); }, s.digits, term.key, s.key_layout, s.first_digit, row.id, k,
        row.m, b, a);
    if (Galois && row.q_row) b = add_mod(b, mul_shoup(s.c0[r * n + source_k], row.p, row.p_shoup, q), q);
  } else if (row.q_row) {
    b = mul_shoup(s.c0[i], row.p, row.p_shoup, q);
    a = mul_shoup(s.c1[i], row.p, row.p_shoup, q);
  }
  if (term.plain) {
    const u64 plain = term.plain[i >> term.plain_block_log];
    b = mul_mod(b, plain, row.m);
    a = mul_mod(a, plain, row.m);
  }
}

}  // namespace fhe::cuda::terms
