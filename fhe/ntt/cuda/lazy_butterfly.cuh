// Lazy Harvey butterflies with Shoup companions, as FHE_HD functions shared
// by every CUDA kernel (and the host emulation test). Let M be the bound of
// the lazy product: 2q for 32-bit words (mul_shoup_lazy, one __umulhi) and
// 4q for 64-bit words (mul_shoup_lazier, whose quotient skips a quarter of
// the 128-bit product). Forward values stay in [0, 2M), inverse values in
// [0, M), so 64-bit needs q < 2^61 and 32-bit q < 2^30 (WordTraits).
// Measured on the H200 (docs/performance.md, session 6): key switching 2.4 %
// faster (many-row batches), inverse passes 1-3 % faster (no spills), the
// one-row forward 7 % slower (latency-bound) than with the exact quotient.
// Outputs of a whole transform are fully reduced, so every factorization
// gives the oracle's words; the CPU butterflies (fhe/ntt/cpu/butterflies.h)
// take other intermediate values.
//
// Growing rows: a 64-bit row whose prime leaves enough headroom skips the
// per-butterfly correction (5 instructions, on each butterfly's dependent
// chain) and lets its values grow through the whole transform; the final
// reduction brings them back into [0, q). The bounds, for logN <= 17
// (kMaxLogN):
// - forward, inputs below 2M = 8q: each stage adds at most M, so values
//   stay below (8 + 4 * 17) q = 76 q < 2^64 for q < 2^57;
// - inverse, inputs below M: sums double each stage, so values stay below
//   2^18 q before stage 0; the difference takes the offset 2^18 q (instead
//   of M) and stays below 2^19 q < 2^64 for q < 2^45.
// Every pass of one transform decides from the row's prime alone, so the
// passes agree on the contract between them (growing or corrected).
#pragma once

#include <type_traits>

#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::ntt::gpu {

inline constexpr int kGrowingForwardModulusBits = 57;
inline constexpr int kGrowingInverseModulusBits = 45;
inline constexpr int kGrowingInverseOffsetShift = kMaxLogN + 1;  // offset 2^18 q

// Whether a row with prime q grows in this direction (64-bit words only).
template <bool Forward, typename Word>
FHE_HD bool row_grows(Word q) {
  if constexpr (sizeof(Word) == 8) {
    return (q >> (Forward ? kGrowingForwardModulusBits : kGrowingInverseModulusBits)) == 0;
  } else {
    return false;
  }
}

// Calls body(std::bool_constant<grows>{}) with the row's choice: a 64-bit
// kernel compiles both butterfly forms and each thread runs its row's (the
// same for a whole block unless its tiles span rows, logN < 12).
template <bool Forward, typename Word, typename Body>
FHE_HD void with_row_growth(Word q, Body&& body) {
  if constexpr (sizeof(Word) == 8) {
    if (row_grows<Forward>(q)) {
      body(std::true_type{});
      return;
    }
  }
  body(std::false_type{});
}

// x - m if x >= m, else x, for x < 2m and m <= 2^(W-1) (W the word's bits,
// true of every bound below): the difference's sign bit decides, one test
// of one 32-bit half instead of a two-word comparison for 64-bit words.
template <typename Word>
FHE_HD Word subtract_if_at_least(Word x, Word m) {
  const Word difference = x - m;
  return static_cast<std::make_signed_t<Word>>(difference) < 0 ? x : difference;
}

// The lazy product x * w mod q in [0, M) for any word x.
template <typename Word>
FHE_HD Word lazy_product(Word x, TwiddlePair<Word> w, Word q) {
  if constexpr (sizeof(Word) == 8) {
    return mul_shoup_lazier(x, w.value, w.companion, q);
  } else {
    return mul_shoup_lazy<Word>(x, w.value, w.companion, q);
  }
}

// M, the lazy product's bound.
template <typename Word>
FHE_HD Word lazy_bound(Word q) {
  return sizeof(Word) == 8 ? 4 * q : 2 * q;
}

// The inverse difference's offset: at least the bound of y.
template <bool Grows, typename Word>
FHE_HD Word inverse_offset(Word q) {
  return Grows ? q << kGrowingInverseOffsetShift : lazy_bound(q);
}

// Cooley-Tukey: (x, y) -> (x + w y, x - w y), inputs and outputs in [0, 2M)
// (growing: outputs at most M above the inputs).
template <typename Word, bool Grows = false>
FHE_HD void forward_butterfly(Word& x, Word& y, TwiddlePair<Word> w, Word q) {
  const Word m = lazy_bound(q);
  const Word u = Grows ? x : subtract_if_at_least(x, m);
  const Word v = lazy_product<Word>(y, w, q);
  x = u + v;
  y = u - v + m;
}

// Gentleman-Sande: (x, y) -> (x + y, w (x - y)), inputs and outputs in [0, M)
// (growing: x doubles its bound, y stays below M).
template <typename Word, bool Grows = false>
FHE_HD void inverse_butterfly(Word& x, Word& y, TwiddlePair<Word> w, Word q) {
  const Word sum = x + y;
  const Word difference = x - y + inverse_offset<Grows>(q);
  x = Grows ? sum : subtract_if_at_least(sum, lazy_bound(q));
  y = lazy_product<Word>(difference, w, q);
}

// The inverse's last butterfly (stage 0) with the N^-1 scaling folded in:
// (x, y) -> (N^-1 (x + y), N^-1 w (x - y)), fully reduced into [0, q).
template <typename Word, bool Grows = false>
FHE_HD void inverse_butterfly_scaled(Word& x, Word& y, const RowConstants<Word>& c) {
  const Word sum = x + y;                                  // < 2M (growing: < 2^19 q)
  const Word difference = x - y + inverse_offset<Grows>(c.q);
  x = mul_shoup<Word>(sum, c.n_inverse, c.n_inverse_shoup, c.q);
  y = mul_shoup<Word>(difference, c.scaled_stage0, c.scaled_stage0_shoup, c.q);
}

// [0, 2M) -> [0, q): the forward transform's final reduction (growing:
// from [0, 76q), through the lazy product by 1 into [0, M) first).
template <typename Word, bool Grows = false>
FHE_HD Word reduce_forward_output(Word x, const RowConstants<Word>& c) {
  const Word q = c.q;
  if constexpr (Grows) {
    x = lazy_product<Word>(x, {1, c.one_shoup}, q);
  } else if constexpr (sizeof(Word) == 8) {
    x = subtract_if_at_least<Word>(x, 4 * q);
  }
  x = subtract_if_at_least<Word>(x, 2 * q);
  return subtract_if_at_least<Word>(x, q);
}

}  // namespace fhe::ntt::gpu
