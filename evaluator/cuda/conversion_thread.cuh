// The basis conversion's thread body (BasisConversion::convert word for
// word), FHE_HD so the host emulation test
// (tests/evaluator/gpu/conversion_emulation_test.cpp) runs it thread by
// thread. A thread converts the coefficients k and k + n/2, so the
// per-target constants (uniform loads) serve two outputs, for the targets
// first_target .. first_target + TargetsPerSlice - 1.
//
// y_i = [x_i * qhat_i^-1]_(q_i) are computed once, then every target is one
// of two sums:
// - the exact 128-bit sum sum_i y_i [qhat_i R]_(p_t) + #(y_i > q_i/2)
//   [-Q R]_(p_t), reduced once by Montgomery (R^-1 cancels the constants'
//   R). make_basis_conversion refuses source sets whose sums could leave
//   montgomery_reduce's range; the count of negative y_i times [-Q R]_(p_t)
//   is a 64-bit product (counts <= kMaxConversionSources, primes < 2^61).
// - when every source is below 2^50 (DeviceConversion::fp64_sources) and
//   there are at most kMaxFp64Sources, for every target: with the centred
//   digits y~_i (|y~_i| <= (q_i - 1)/2 < 2^49) and h_i = [qhat_i]_(p_t),
//   X = sum_i y~_i h_i is congruent to the output. Its quotient by p_t is
//   estimated in double precision, e = round(sum_i y~_i fl(h_i / p_t)) (one
//   product and S - 1 FMAs), and r = X - e p_t is computed in 64-bit words
//   mod 2^64 (the low halves of the products). Error of the estimate:
//   each fl(h_i / p_t) is within 3 * 2^-53 of h_i / p_t < 1 (0.19 after
//   the product), each of the S roundings at most half an ulp below 2^51
//   (2^-3), so with S <= 4 it is within 1.25 of X / p_t, and
//   |X / p_t| < 2^51 - 4 (the rounding needs |e| < 2^51). Then
//   -1.75 p_t < r < 1.75 p_t: two conditional additions and one
//   subtraction of p_t make it canonical (p_t < 2^62 keeps r in a signed
//   word). With every source below 2^46 (close_estimate) the same bounds
//   give 0.11 (|y~_i| < 2^45: 0.012 a term, roundings below 2^47: 2^-6), so
//   -0.61 p_t < r < 0.61 p_t and one conditional addition suffices.
//   Against a product mod p_t per term in double precision (session
//   30, docs/performance.md): a fifth of the FP64 operations, and one path
//   for the narrow and the wide targets.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/device_conversion.h"
#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"

namespace fhe::cuda {

inline constexpr unsigned kConversionCoefficients = 2;

static_assert(kMaxConversionSources <= 8 && WordTraits<std::uint64_t>::max_modulus_bits <= 61,
              "count * [-Q R]_(p_t) must fit a word");

// A target's S hats (words or doubles), two to a 16-byte load when S is
// even (the blob aligns every array to 16 bytes, so hat + t * S is aligned
// too): session 23, level-17 key switch -0.8 %.
template <typename T>
struct alignas(16) HatPair {
  T first, second;
};

template <int S, typename T>
FHE_HD void load_hats(const T* __restrict__ hat, T (&h)[S]) {
  static_assert(sizeof(T) == 8);
  if constexpr (S % 2 == 0) {
#pragma unroll
    for (int i = 0; i < S; i += 2) {
      const HatPair<T> pair = reinterpret_cast<const HatPair<T>*>(hat)[i / 2];
      h[i] = pair.first;
      h[i + 1] = pair.second;
    }
  } else {
#pragma unroll
    for (int i = 0; i < S; ++i) h[i] = hat[i];
  }
}

// round(estimate) mod 2^64 for |estimate| < 2^51: adding 1.5 * 2^52
// leaves the rounded integer in the mantissa under a fixed exponent, so
// the difference of the bits is the integer in two's complement.
FHE_HD std::uint64_t rounded_word(double estimate) {
  namespace ntt = fhe::ntt::gpu;
  return ntt::bits_of_fp64(ntt::fp64_add(estimate, ntt::kRoundingShift)) - ntt::bits_of_fp64(ntt::kRoundingShift);
}

// The word in [0, p) of r (two's complement), -p < r < p.
FHE_HD std::uint64_t canonical_of_close(std::uint64_t r, std::uint64_t p) {
  return static_cast<std::int64_t>(r) < 0 ? r + p : r;
}

// The word in [0, p) of r (two's complement), -2p < r < 2p, p < 2^62.
FHE_HD std::uint64_t canonical_of_signed(std::uint64_t r, std::uint64_t p) {
  return fhe::ntt::gpu::subtract_if_at_least(canonical_of_close(canonical_of_close(r, p), p), p);
}

template <int S, int TargetsPerSlice, bool Fp64Sources>
FHE_HD void convert_sources(const DeviceConversion& c, const std::uint64_t* __restrict__ source,
                            std::uint64_t* __restrict__ destination, std::size_t k, int log_n, int first_target) {
  using u64 = std::uint64_t;
  using u128 = unsigned __int128;
  namespace ntt = fhe::ntt::gpu;
  const std::size_t n = std::size_t{1} << log_n, half = n >> 1;
  const u64* src = source + static_cast<std::size_t>(c.source_offset_rows) * n;
  u64 y[kConversionCoefficients][S];  // y_i, or with Fp64Sources y~_i mod 2^64
  double centred[kConversionCoefficients][Fp64Sources ? S : 1];  // y~_i
  std::uint32_t negatives[kConversionCoefficients] = {};
#pragma unroll
  for (int i = 0; i < S; ++i) {
    const u64 q = c.source_moduli[i].value, w = c.hat_inverse[i], w_shoup = c.hat_inverse_shoup[i];
#pragma unroll
    for (unsigned j = 0; j < kConversionCoefficients; ++j) {
      const u64 yi = mul_shoup(src[static_cast<std::size_t>(i) * n + k + j * half], w, w_shoup, q);
      const bool negative = yi > q / 2;
      if constexpr (Fp64Sources) {
        const double word = ntt::fp64_of_word(yi);
        centred[j][i] = negative ? ntt::fp64_add(word, -ntt::fp64_of_word(q)) : word;
        y[j][i] = negative ? yi - q : yi;
      } else {
        negatives[j] += negative ? 1 : 0;
        y[j][i] = yi;
      }
    }
  }
  const int last = std::min(c.targets, first_target + TargetsPerSlice);
  for (int t = first_target; t < last; ++t) {
    const u64 p = c.target_moduli[t].value;
    u64* out = destination + static_cast<std::size_t>(c.target_offsets[t]) * n;
    if constexpr (Fp64Sources) {
      double quotient[S];
      u64 hat[S];
      load_hats<S>(c.hat_quotient + static_cast<std::size_t>(t) * S, quotient);
      load_hats<S>(c.hat_plain + static_cast<std::size_t>(t) * S, hat);
#pragma unroll
      for (unsigned j = 0; j < kConversionCoefficients; ++j) {
        double estimate = ntt::fp64_mul(centred[j][0], quotient[0]);
        u64 sum = y[j][0] * hat[0];
#pragma unroll
        for (int i = 1; i < S; ++i) {
          estimate = ntt::fp64_fma(centred[j][i], quotient[i], estimate);
          sum += y[j][i] * hat[i];
        }
        const u64 r = sum - rounded_word(estimate) * p;
        out[k + j * half] = c.close_estimate ? canonical_of_close(r, p) : canonical_of_signed(r, p);
      }
      continue;
    }
    u64 hat[S];
    load_hats<S>(c.hat_montgomery + static_cast<std::size_t>(t) * S, hat);
    const u64 minus_q = c.minus_q_montgomery[t], factor = c.target_factors[t];
    u128 sum[kConversionCoefficients];
#pragma unroll
    for (unsigned j = 0; j < kConversionCoefficients; ++j) sum[j] = static_cast<u64>(negatives[j]) * minus_q;
#pragma unroll
    for (int i = 0; i < S; ++i) {
      const u64 h = hat[i];
#pragma unroll
      for (unsigned j = 0; j < kConversionCoefficients; ++j) sum[j] += static_cast<u128>(y[j][i]) * h;
    }
#pragma unroll
    for (unsigned j = 0; j < kConversionCoefficients; ++j) {
      out[k + j * half] = montgomery_reduce(static_cast<u64>(sum[j] >> 64), static_cast<u64>(sum[j]), p, factor);
    }
  }
}

// One dispatch on the source count and the sums (uniform per block). The
// host builds at most kMaxConversionSources sources; a kernel built for at
// most MaxSources (fewer registers) converts nothing above them, so its
// launcher must not give it more.
template <int TargetsPerSlice, int MaxSources = kMaxConversionSources>
FHE_HD void convert_coefficients(const DeviceConversion& c, const std::uint64_t* source, std::uint64_t* destination,
                                 std::size_t k, int log_n, int first_target) {
  const auto run = [&]<int S>() {
    if constexpr (S <= MaxSources) {
      if constexpr (S <= kMaxFp64Sources) {
        if (c.fp64_sources) {
          return convert_sources<S, TargetsPerSlice, true>(c, source, destination, k, log_n, first_target);
        }
      }
      convert_sources<S, TargetsPerSlice, false>(c, source, destination, k, log_n, first_target);
    }
  };
  switch (c.sources) {
    case 1: return run.template operator()<1>();
    case 2: return run.template operator()<2>();
    case 3: return run.template operator()<3>();
    case 4: return run.template operator()<4>();
    case 5: return run.template operator()<5>();
    case 6: return run.template operator()<6>();
    case 7: return run.template operator()<7>();
    case 8: return run.template operator()<8>();
  }
}

}  // namespace fhe::cuda
