// Butterflies in double precision for 64-bit rows whose prime is below
// 2^42 (the scale-30 and scale-40 presets' Q primes: 34 of the default
// preset's 39 rows). The H200 runs 64 FP64 fused multiply-adds a clock per
// SM, as many as 32-bit integer multiply-adds, but a product mod q costs
// five FP64 operations here against about nine multiply-pipe instructions
// plus the carries of the 64-bit Shoup product (lazy_butterfly.cuh).
//
// Inside a kernel a word is held as the double of the same integer value,
// signed and exact (every value stays below 2^49 in magnitude); a Word
// array slot carries the double's bits. Stored words are non-negative
// integers below 2^52, read with one OR and one add (2^52's exponent makes
// the word the mantissa) and written back the same way with a bias that
// keeps them non-negative. The tables hold each twiddle w as a double (8
// bytes); its companion c = fl(w fl(1/q)), within 2^-52 w/q of w/q, is one
// multiply away. The product of x (|x| < 2^49) and w:
//   h = fl(x w), l = x w - h (exact, one FMA), e = round(x c),
//   t = (h - e q) + l,
// where |x w - e q| <= (1/2 + 2^-3) q (c's error times |x|), so h - e q is
// an integer below 2^53 and every step is exact: t = x w - e q,
// |t| < 0.63 q. Forward values grow by at most 0.63 q a stage; inverse
// sums double a stage, so they are reduced (x - round(x / q) q) every third
// stage of a round and at its last when it has fewer than three
// (inverse_reduces_sums).
// Device code uses the _rn intrinsics so the compiler cannot contract a
// product and an add into an FMA the host emulation would not match.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/lazy_butterfly.cuh"
#include "fhe/ntt/cuda/memory_access.cuh"

namespace fhe::ntt::gpu {

inline constexpr int kFp64ModulusBits = 42;

// Whether a 64-bit row of prime q can use these butterflies. The table
// builder decides it once per row (RowConstants::fp64); kernels follow.
FHE_HD constexpr bool fp64_modulus(std::uint64_t q) { return q < (std::uint64_t{1} << kFp64ModulusBits); }

// fl(1 / q), the q_inverse Fp64Arith takes: built once per row on the host
// (the NTT tables' RowConstants::fp64_q_inverse, the evaluator's tensor rows).
inline double fp64_inverse(std::uint64_t q) { return 1.0 / static_cast<double>(q); }

FHE_HD double fp64_of_bits(std::uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

FHE_HD std::uint64_t bits_of_fp64(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(d));
#else
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
#endif
}

FHE_HD double fp64_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

FHE_HD double fp64_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

FHE_HD double fp64_fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

inline constexpr double kTwo52 = 4503599627370496.0;
inline constexpr std::uint64_t kTwo52Bits = 0x4330000000000000ULL;  // the bits of 2^52
inline constexpr std::uint64_t kMantissaMask = (std::uint64_t{1} << 52) - 1;
// Adding 1.5 * 2^52 to a value below 2^51 in magnitude leaves no fraction
// bits: the sum is rounded to the nearest integer.
inline constexpr double kRoundingShift = 6755399441055744.0;

// round(a b) for |a b| < 2^51, exact.
FHE_HD double fp64_round_product(double a, double b) {
  return fp64_add(fp64_fma(a, b, kRoundingShift), -kRoundingShift);
}

// The double of a stored word x < 2^52.
FHE_HD double fp64_of_word(std::uint64_t x) { return fp64_add(fp64_of_bits(x | kTwo52Bits), -kTwo52); }

// The stored word of v + bias - 2^52, for bias = 2^52 + b with 0 <= v + b < 2^52.
FHE_HD std::uint64_t word_of_fp64(double v, double bias) { return bits_of_fp64(fp64_add(v, bias)) & kMantissaMask; }

// Inverse butterflies of a round of `active` stages reduce their sums at
// the stage they run k-th (k from 0): the third, or the round's last when
// it has fewer. Sums then stay below 2^5 times the round's input bound.
FHE_HD constexpr bool inverse_reduces_sums(int k, int active) { return k == (active < 3 ? active - 1 : 2); }

// One row's double-precision arithmetic (the integer one is IntegerArith).
struct Fp64Arith {
  std::uint64_t q_word;
  double q, q_inverse;
  double store_bias;   // 2^52 + 3q: intermediate words, v > -3q
  double output_bias;  // 2^52 + q: fully reduced words, |v| < q

  // q below 2^42 and q_inverse = fl(1 / q).
  FHE_HD Fp64Arith(std::uint64_t q_value, double q_inverse_value)
      : q_word(q_value), q(fp64_of_word(q_value)), q_inverse(q_inverse_value) {
    store_bias = fp64_fma(3.0, q, kTwo52);
    output_bias = fp64_add(q, kTwo52);
  }
  FHE_HD explicit Fp64Arith(const RowConstants<std::uint64_t>& c) : Fp64Arith(c.q, c.fp64_q_inverse) {}

  // v - round(v / q) q, |result| < 0.51 q, for |v| < 2^50.
  FHE_HD double reduce(double v) const { return fp64_fma(-fp64_round_product(v, q_inverse), q, v); }

  // x w - e q for the twiddle (w, c), |result| < 0.63 q.
  FHE_HD double product(double x, double w, double w_over_q) const {
    const double high = fp64_mul(x, w);
    const double low = fp64_fma(x, w, -high);
    const double quotient = fp64_round_product(x, w_over_q);
    return fp64_add(fp64_fma(-quotient, q, high), low);
  }

  FHE_HD double product(double x, TwiddlePair<std::uint64_t> w) const {
    return product(x, fp64_of_bits(w.value), fp64_of_bits(w.companion));
  }

  // A twiddle or constant w in the form product() takes: w and its companion.
  FHE_HD TwiddlePair<std::uint64_t> pair(double w) const {
    return {bits_of_fp64(w), bits_of_fp64(fp64_mul(w, q_inverse))};
  }
  FHE_HD TwiddlePair<std::uint64_t> constant(std::uint64_t k) const { return pair(fp64_of_word(k)); }

  // Twiddle `index` of a row's table: doubles packed at the start of the
  // row's pair slots, half the bytes of the integer pairs.
  FHE_HD TwiddlePair<std::uint64_t> twiddle(const TwiddlePair<std::uint64_t>* row, std::size_t index) const {
    return pair(load_fp64(reinterpret_cast<const double*>(row) + index));
  }

  FHE_HD std::uint64_t loaded(std::uint64_t stored) const { return bits_of_fp64(fp64_of_word(stored)); }

  // A word for global memory: fully reduced when the kernel ends the
  // transform (inverse stage 0, whose butterfly reduced it already),
  // otherwise biased to a non-negative integer below 2^52.
  FHE_HD std::uint64_t stored(std::uint64_t v, bool final) const {
    return final ? v : word_of_fp64(fp64_of_bits(v), store_bias);
  }

  // The word in [0, q) of r, |r| < q.
  FHE_HD std::uint64_t canonical(double r) const {
    return subtract_if_at_least(word_of_fp64(r, output_bias), q_word);
  }

  // The forward transform's output in [0, q).
  FHE_HD std::uint64_t output(std::uint64_t v) const { return canonical(reduce(fp64_of_bits(v))); }

  FHE_HD void forward(std::uint64_t& x, std::uint64_t& y, TwiddlePair<std::uint64_t> w) const {
    const double a = fp64_of_bits(x);
    const double t = product(fp64_of_bits(y), w);
    x = bits_of_fp64(fp64_add(a, t));
    y = bits_of_fp64(fp64_add(a, -t));
  }

  template <bool ReduceSum>
  FHE_HD void inverse(std::uint64_t& x, std::uint64_t& y, TwiddlePair<std::uint64_t> w) const {
    const double a = fp64_of_bits(x), b = fp64_of_bits(y);
    const double sum = fp64_add(a, b);
    x = bits_of_fp64(ReduceSum ? reduce(sum) : sum);
    y = bits_of_fp64(product(fp64_add(a, -b), w));
  }

  // Stage 0 of the inverse with N^-1 folded in, fully reduced words out.
  FHE_HD void inverse_scaled(std::uint64_t& x, std::uint64_t& y, const RowConstants<std::uint64_t>& c) const {
    const double a = fp64_of_bits(x), b = fp64_of_bits(y);
    x = canonical(product(fp64_add(a, b), constant(c.n_inverse)));
    y = canonical(product(fp64_add(a, -b), constant(c.scaled_stage0)));
  }
};

}  // namespace fhe::ntt::gpu
