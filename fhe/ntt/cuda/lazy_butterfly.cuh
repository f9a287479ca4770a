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
#pragma once

#include <cstdint>
#include <type_traits>

#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/memory_access.cuh"

namespace fhe::ntt::gpu {

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

// Cooley-Tukey: (x, y) -> (x + w y, x - w y), inputs and outputs in [0, 2M).
template <typename Word>
FHE_HD void forward_butterfly(Word& x, Word& y, TwiddlePair<Word> w, Word q) {
  const Word m = lazy_bound(q);
  const Word u = subtract_if_at_least(x, m);
  const Word v = lazy_product<Word>(y, w, q);
  x = u + v;
  y = u - v + m;
}

// Gentleman-Sande: (x, y) -> (x + y, w (x - y)), inputs and outputs in [0, M).
template <typename Word>
FHE_HD void inverse_butterfly(Word& x, Word& y, TwiddlePair<Word> w, Word q) {
  const Word m = lazy_bound(q);
  const Word sum = x + y;
  const Word difference = x - y + m;
  x = subtract_if_at_least(sum, m);
  y = lazy_product<Word>(difference, w, q);
}

// The inverse's last butterfly (stage 0) with the N^-1 scaling folded in:
// (x, y) -> (N^-1 (x + y), N^-1 w (x - y)), fully reduced into [0, q).
template <typename Word>
FHE_HD void inverse_butterfly_scaled(Word& x, Word& y, const RowConstants<Word>& c) {
  const Word sum = x + y;                            // < 2M
  const Word difference = x - y + lazy_bound(c.q);  // < 2M
  x = mul_shoup<Word>(sum, c.n_inverse, c.n_inverse_shoup, c.q);
  y = mul_shoup<Word>(difference, c.scaled_stage0, c.scaled_stage0_shoup, c.q);
}

// [0, 2M) -> [0, q): the forward transform's final reduction.
template <typename Word>
FHE_HD Word reduce_forward_output(Word x, Word q) {
  if constexpr (sizeof(Word) == 8) x = subtract_if_at_least<Word>(x, 4 * q);
  x = subtract_if_at_least<Word>(x, 2 * q);
  return subtract_if_at_least<Word>(x, q);
}

// One row's integer arithmetic, the interface Fp64Arith (fp64_arith.cuh)
// shares: words are held as they are stored, in the lazy ranges above.
template <typename Word>
struct IntegerArith {
  Word q;

  // Pair `index` of a row's table.
  FHE_HD TwiddlePair<Word> twiddle(const TwiddlePair<Word>* row, std::size_t index) const {
    return load_twiddle(row + index);
  }
  FHE_HD Word loaded(std::uint64_t stored) const { return static_cast<Word>(stored); }
  FHE_HD std::uint64_t stored(Word v, bool /*final*/) const { return v; }
  FHE_HD Word output(Word v) const { return reduce_forward_output<Word>(v, q); }
  FHE_HD void forward(Word& x, Word& y, TwiddlePair<Word> w) const { forward_butterfly<Word>(x, y, w, q); }
  template <bool ReduceSum>
  FHE_HD void inverse(Word& x, Word& y, TwiddlePair<Word> w) const {
    inverse_butterfly<Word>(x, y, w, q);
  }
  FHE_HD void inverse_scaled(Word& x, Word& y, const RowConstants<Word>& c) const {
    inverse_butterfly_scaled<Word>(x, y, c);
  }
};

}  // namespace fhe::ntt::gpu
