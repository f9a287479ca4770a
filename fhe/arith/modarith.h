// Word arithmetic modulo an NTT prime, shared by the CPU and CUDA code.
//
// Choice (documented in docs/architecture.md):
// - Multiplication by a *known* constant w (twiddles, N^-1, rescale factors)
//   uses Shoup's method: w' = floor(w * 2^W / q) is precomputed, and
//   x*w mod q costs two multiplications and no division. The lazy form
//   returns a value in [0, 2q); with inputs up to 4q (Harvey butterflies)
//   this needs 4q < 2^W, hence q < 2^30 for 32-bit words. The CUDA
//   butterflies on 64-bit words estimate the quotient from three of the four
//   32-bit partial products (mul_shoup_lazier: [0, 4q)) and so let values
//   reach 8q: q < 2^61 for 64-bit words.
// - Multiplication of two run-time values uses Barrett reduction with the
//   precomputed floor(2^(2W) / q) (two words), fully reduced.
// Both are templated on the word type so int32 presets use 32-bit
// multiplies (3.6x the throughput on an H200) with identical results.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fhe/core/host_device.h"

namespace fhe {

template <typename Word>
struct WordTraits;

template <>
struct WordTraits<std::uint64_t> {
  using Wide = unsigned __int128;
  static constexpr int bits = 64;
  static constexpr int max_modulus_bits = 61;  // 8q < 2^64 for the CUDA butterflies
};

template <>
struct WordTraits<std::uint32_t> {
  using Wide = std::uint64_t;
  static constexpr int bits = 32;
  static constexpr int max_modulus_bits = 30;  // 4q < 2^32
};

// High word of a*b.
FHE_HD std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

FHE_HD std::uint32_t mul_hi(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
}

template <typename Word>
FHE_HD Word add_mod(Word a, Word b, Word q) {
  Word s = a + b;
  return s >= q ? s - q : s;
}

template <typename Word>
FHE_HD Word sub_mod(Word a, Word b, Word q) {
  return a >= b ? a - b : a + q - b;
}

template <typename Word>
FHE_HD Word neg_mod(Word a, Word q) {
  return a == 0 ? 0 : q - a;
}

// Shoup companion floor(w * 2^W / q), for w < q.
template <typename Word>
inline Word shoup_companion(Word w, Word q) {
  using Wide = typename WordTraits<Word>::Wide;
  return static_cast<Word>((static_cast<Wide>(w) << WordTraits<Word>::bits) / q);
}

// x * w mod q in [0, 2q), for any x < 2^W.
template <typename Word>
FHE_HD Word mul_shoup_lazy(Word x, Word w, Word w_shoup, Word q) {
  Word quotient = mul_hi(x, w_shoup);
  return x * w - quotient * q;
}

// x * w mod q in [0, 4q), for any x < 2^64: Shoup's quotient
// floor(x w' / 2^64) estimated without the low x low partial product and the
// low halves of the two cross products. Each dropped part is below 2^64, so
// the estimate is at most 2 short and the result at most 2q above
// mul_shoup_lazy's. Three 32-bit products instead of four; on sm_90 it issues
// no fewer multiply-pipe instructions (the exact product's carry chain
// becomes IMAD.HI), but the CUDA NTT passes need fewer registers with it
// (docs/performance.md, session 6).
FHE_HD std::uint64_t mul_shoup_lazier(std::uint64_t x, std::uint64_t w, std::uint64_t w_shoup,
                                      std::uint64_t q) {
  const auto x_lo = static_cast<std::uint32_t>(x), x_hi = static_cast<std::uint32_t>(x >> 32);
  const auto s_lo = static_cast<std::uint32_t>(w_shoup), s_hi = static_cast<std::uint32_t>(w_shoup >> 32);
  const std::uint64_t quotient =
      static_cast<std::uint64_t>(x_hi) * s_hi + mul_hi(x_hi, s_lo) + mul_hi(x_lo, s_hi);
  return x * w - quotient * q;
}

// x * w mod q fully reduced.
template <typename Word>
FHE_HD Word mul_shoup(Word x, Word w, Word w_shoup, Word q) {
  Word r = mul_shoup_lazy(x, w, w_shoup, q);
  return r >= q ? r - q : r;
}

// A prime modulus with its Barrett constant floor(2^(2W)/q) = hi:lo.
template <typename Word>
struct Modulus {
  Word value = 0;
  Word barrett_hi = 0;
  Word barrett_lo = 0;

  Modulus() = default;
  explicit Modulus(Word q) : value(q) {
    using Wide = typename WordTraits<Word>::Wide;
    constexpr int W = WordTraits<Word>::bits;
    // floor((2^(2W) - 1) / q) equals floor(2^(2W) / q) because q is odd and > 1.
    Wide all_ones = ~static_cast<Wide>(0);
    // Long division of 2^(2W)-1 by q, one word at a time.
    Wide high = (all_ones >> W) / q;
    Wide rem = (all_ones >> W) % q;
    Wide low = ((rem << W) | static_cast<Word>(all_ones)) / q;
    barrett_hi = static_cast<Word>(high);
    barrett_lo = static_cast<Word>(low);
  }
};

// x mod q for any double word x = hi:lo (x < 2^(2W)), via Barrett reduction.
// Also reduces sums of products (CKKS key inner products, basis conversion).
template <typename Word>
FHE_HD Word reduce_wide(Word hi, Word lo, const Modulus<Word>& m) {
  using Wide = typename WordTraits<Word>::Wide;
  constexpr int W = WordTraits<Word>::bits;
  // Estimate floor(x * ratio / 2^(2W)) from the three significant partial products.
  Word carry = mul_hi(lo, m.barrett_lo);
  Wide mid = static_cast<Wide>(lo) * m.barrett_hi + carry;
  Wide mid2 = static_cast<Wide>(hi) * m.barrett_lo + static_cast<Word>(mid);
  Word quotient = hi * m.barrett_hi + static_cast<Word>(mid >> W) + static_cast<Word>(mid2 >> W);
  // The truncated estimate is at most 2 below the true quotient, so r < 3q < 2^W.
  Word r = lo - quotient * m.value;
  r = r >= m.value ? r - m.value : r;
  return r >= m.value ? r - m.value : r;
}

// a * b mod q for a, b < q, via Barrett reduction of the double word.
template <typename Word>
FHE_HD Word mul_mod(Word a, Word b, const Modulus<Word>& m) {
  using Wide = typename WordTraits<Word>::Wide;
  constexpr int W = WordTraits<Word>::bits;
  Wide product = static_cast<Wide>(a) * b;
  return reduce_wide<Word>(static_cast<Word>(product >> W), static_cast<Word>(product), m);
}

// Montgomery reduction with R = 2^64, for 128-bit sums of products of
// constants known ahead (stored times R): x R^-1 mod p costs one low and one
// high product, against four for reduce_wide. montgomery_factor(p) is
// -p^-1 mod 2^64 (p odd); the result is < x / 2^64 + p, so below (k + 1) p
// for x < k p 2^64, and needs that many conditional subtractions.
// x^-1 mod 2^64 for an odd x.
inline std::uint64_t inverse_mod_2_64(std::uint64_t x) {
  std::uint64_t inverse = x;                             // x * x = 1 mod 8: 3 bits
  for (int i = 0; i < 5; ++i) inverse *= 2 - x * inverse;  // Newton: 6, 12, 24, 48, 96 bits
  return inverse;
}

inline std::uint64_t montgomery_factor(std::uint64_t p) { return 0 - inverse_mod_2_64(p); }

// a R mod p: a constant in Montgomery form.
inline std::uint64_t to_montgomery(std::uint64_t a, std::uint64_t p) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a % p) << 64) % p);
}

FHE_HD std::uint64_t montgomery_reduce_lazy(std::uint64_t hi, std::uint64_t lo, std::uint64_t p,
                                            std::uint64_t factor) {
  // m p = -lo mod 2^64, so x + m p is a multiple of 2^64; its low words
  // carry exactly when lo != 0.
  const std::uint64_t m = lo * factor;
  return hi + mul_hi(m, p) + (lo != 0 ? 1 : 0);
}

// x R^-1 mod p fully reduced, for x < 3 p 2^64 and p < 2^62 (the lazy result
// is below 4p).
FHE_HD std::uint64_t montgomery_reduce(std::uint64_t hi, std::uint64_t lo, std::uint64_t p,
                                       std::uint64_t factor) {
  std::uint64_t r = montgomery_reduce_lazy(hi, lo, p, factor);
  r = r >= 2 * p ? r - 2 * p : r;
  return r >= p ? r - p : r;
}

// Plain (slow, exact) a * b mod q for table construction on the host.
template <typename Word>
inline Word mul_mod_exact(Word a, Word b, Word q) {
  using Wide = typename WordTraits<Word>::Wide;
  return static_cast<Word>(static_cast<Wide>(a) * b % q);
}

template <typename Word>
inline Word pow_mod(Word base, std::uint64_t exponent, Word q) {
  Word result = 1 % q;
  base %= q;
  while (exponent > 0) {
    if (exponent & 1) result = mul_mod_exact(result, base, q);
    base = mul_mod_exact(base, base, q);
    exponent >>= 1;
  }
  return result;
}

// Inverse of a modulo a prime q (Fermat), a != 0 mod q.
template <typename Word>
inline Word inv_mod(Word a, Word q) {
  return pow_mod<Word>(a, static_cast<std::uint64_t>(q) - 2, q);
}

}  // namespace fhe
