// The basis conversion's thread body (BasisConversion::convert word for
// word), FHE_HD so the host emulation test
// (tests/evaluator/gpu/conversion_emulation_test.cpp) runs it thread by
// thread. A thread converts the coefficients k and k + n/2 for the targets
// first_target .. first_target + TargetsPerSlice - 1; the centred sums hold
// both at once, so the per-target constants (uniform loads) serve two
// outputs, the split sums take them one after the other (registers).
//
// y_i = [x_i * qhat_i^-1]_(q_i) are computed once, then every target is
// X mod p_t for an X congruent to sum_i y~_i qhat_i, y~_i the centred digit
// (y_i, or y_i - q_i when y_i > q_i / 2), which is what
// BasisConversion::convert computes. Both sums estimate the quotient of X
// by p_t in double precision, e = round(X / p_t) up to the estimate's error,
// compute r = X - e p_t in 64-bit words mod 2^64 (the low halves of the
// products) and make it canonical; p_t < 2^62 keeps r in a signed word.
// - The centred sums, when every source is below 2^50 and there are at
//   most kMaxCentredSources (DeviceConversion::centred_estimate): with
//   h_i = [qhat_i]_(p_t), X = sum_i y~_i h_i and
//   e = round(sum_i y~_i fl(h_i / p_t)) (one product and S - 1 FMAs).
//   Each fl(h_i / p_t) is within 3 * 2^-53 of h_i / p_t < 1 (0.19 after
//   the product), each of the S roundings at most half an ulp below 2^51
//   (2^-3), so with S <= 4 the estimate is within 1.25 of X / p_t, and
//   |X / p_t| < 2^51 - 4 (the rounding needs |e| < 2^51). Then
//   -1.75 p_t < r < 1.75 p_t: two conditional additions and one
//   subtraction of p_t make it canonical. With every source below 2^46
//   (close_estimate) the same bounds give 0.11 (|y~_i| < 2^45: 0.012 a
//   term, roundings below 2^47: 2^-6), so -0.61 p_t < r < 0.61 p_t and one
//   conditional addition suffices. Against a product mod p_t per term in
//   double precision (session 30, docs/performance.md): a fifth of the
//   FP64 operations, and one path for the narrow and the wide targets.
// - The split sums, for every other conversion (wide sources, or more
//   than 4): each y_i < 2^61 split into 32-bit halves, y_i = a_i 2^32 + b_i,
//   and X = sum_i (a_i H_i + b_i h_i) + n [-Q]_(p_t), where
//   H_i = [h_i 2^32]_(p_t) and n counts the y_i above q_i / 2. The
//   estimate sums a_i fl(H_i / p_t) + b_i fl(h_i / p_t) and
//   n fl([-Q]_(p_t) / p_t): |X / p_t| < 8 (2^29 + 2^32 + 1) < 2^36, the
//   quotients' errors (3 * 2^-53) times the halves sum to below
//   8 * 3 (2^-21 + 2^-24) < 2^-16, and each of the at most 17 roundings
//   below 2^36 is at most 2^-18, so the estimate is within 2^-13 of
//   X / p_t, -0.51 p_t < r < 0.51 p_t and one conditional addition
//   suffices. A product of a 32-bit half and a word mod 2^64 is two
//   multiply-adds. Against the 128-bit sums with a Montgomery reduction
//   they replace (Nsight Compute, session 31): the level-0 ModDown
//   conversion 30.7 -> 27.9 us at about as many instructions (14.4 M ->
//   14.6 M warp instructions), with part of the work on the FP64 pipe; the
//   SASS holds the halves' doubles across the targets (session 32). Writing
//   the conversion in inline PTX with mad.wide.u32 + mad.lo.u32 products
//   took fewer PTX operations but more warp instructions and was no faster
//   (session 31, call 5).
// Both sums add their products mod 2^64 with mad_low (carry_chains.cuh) and
// form r = X + round(-estimate) p the same way: the level-0 ModUp
// conversion took 12 % fewer instructions, 64 -> 60 us (session 32).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/carry_chains.cuh"
#include "evaluator/cuda/device_conversion.h"
#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"

namespace fhe::cuda {

inline constexpr unsigned kConversionCoefficients = 2;

static_assert(kMaxConversionSources <= 8 && WordTraits<std::uint64_t>::max_modulus_bits <= 61,
              "the split sums' bound: at most 8 sources below 2^61, targets below 2^62");

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

// y_i at one position of source row i.
FHE_HD std::uint64_t source_digit(const DeviceConversion& c, const std::uint64_t* __restrict__ source, int i,
                                  std::size_t position, int log_n) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::uint64_t x = source[(static_cast<std::size_t>(c.source_offset_rows) + i) * n + position];
  return mul_shoup(x, c.hat_inverse[i], c.hat_inverse_shoup[i], c.source_moduli[i].value);
}

template <int S, int TargetsPerSlice>
FHE_HD void convert_centred(const DeviceConversion& c, const std::uint64_t* __restrict__ source,
                            std::uint64_t* __restrict__ destination, std::size_t k, int log_n, int first_target) {
  using u64 = std::uint64_t;
  namespace ntt = fhe::ntt::gpu;
  const std::size_t n = std::size_t{1} << log_n, half = n >> 1;
  u64 y[kConversionCoefficients][S];  // y~_i mod 2^64
  double centred[kConversionCoefficients][S];  // y~_i
#pragma unroll
  for (int i = 0; i < S; ++i) {
    const u64 q = c.source_moduli[i].value;
#pragma unroll
    for (unsigned j = 0; j < kConversionCoefficients; ++j) {
      const u64 yi = source_digit(c, source, i, k + j * half, log_n);
      const bool negative = yi > q / 2;
      const double word = ntt::fp64_of_word(yi);
      centred[j][i] = negative ? ntt::fp64_add(word, -ntt::fp64_of_word(q)) : word;
      y[j][i] = negative ? yi - q : yi;
    }
  }
  const int last = std::min(c.targets, first_target + TargetsPerSlice);
  for (int t = first_target; t < last; ++t) {
    const u64 p = c.target_moduli[t].value;
    u64* out = destination + static_cast<std::size_t>(c.target_offsets[t]) * n;
    double quotient[S];
    u64 hat[S];
    load_hats<S>(c.hat_quotient + static_cast<std::size_t>(t) * S, quotient);
    load_hats<S>(c.hat_plain + static_cast<std::size_t>(t) * S, hat);
#pragma unroll
    for (unsigned j = 0; j < kConversionCoefficients; ++j) {
      double estimate = ntt::fp64_mul(centred[j][0], quotient[0]);
      u64 sum = 0;
#pragma unroll
      for (int i = 0; i < S; ++i) {
        if (i > 0) estimate = ntt::fp64_fma(centred[j][i], quotient[i], estimate);
        sum = mad_low(y[j][i], hat[i], sum);
      }
      // sum - e p as sum + (-e) p: round(-estimate) is -e up to the same
      // rounding, and the negation is free in the addition of the shift.
      const u64 r = mad_low(rounded_word(-estimate), p, sum);
      out[k + j * half] = c.close_estimate ? canonical_of_close(r, p) : canonical_of_signed(r, p);
    }
  }
}

// One coefficient at a time: the halves and their doubles take three
// times the registers of y_i, so both coefficients' would spill.
template <int S, int TargetsPerSlice>
FHE_HD void convert_split(const DeviceConversion& c, const std::uint64_t* __restrict__ source,
                          std::uint64_t* __restrict__ destination, std::size_t k, int log_n, int first_target) {
  using u64 = std::uint64_t;
  namespace ntt = fhe::ntt::gpu;
  const std::size_t n = std::size_t{1} << log_n, half = n >> 1;
  const int last = std::min(c.targets, first_target + TargetsPerSlice);
#pragma unroll 1
  for (unsigned j = 0; j < kConversionCoefficients; ++j) {
    const std::size_t position = k + j * half;
    std::uint32_t a[S], b[S];  // y_i = a_i 2^32 + b_i
    double high[S], low[S];    // a_i, b_i
    std::uint32_t negatives = 0;
#pragma unroll
    for (int i = 0; i < S; ++i) {
      const u64 yi = source_digit(c, source, i, position, log_n);
      negatives += yi > c.source_moduli[i].value / 2 ? 1 : 0;
      a[i] = static_cast<std::uint32_t>(yi >> 32);
      b[i] = static_cast<std::uint32_t>(yi);
      high[i] = ntt::fp64_of_word(a[i]);
      low[i] = ntt::fp64_of_word(b[i]);
    }
    const double count = ntt::fp64_of_word(negatives);
#pragma unroll 1
    for (int t = first_target; t < last; ++t) {
      const auto* hats = reinterpret_cast<const HatPair<u64>*>(c.split_hats) + static_cast<std::size_t>(t) * S;
      const auto* quotients =
          reinterpret_cast<const HatPair<double>*>(c.split_quotients) + static_cast<std::size_t>(t) * S;
      double estimate = ntt::fp64_mul(count, c.minus_q_quotient[t]);
      u64 sum = mad_low(negatives, c.minus_q[t], 0);
#pragma unroll
      for (int i = 0; i < S; ++i) {
        const HatPair<u64> hat = hats[i];  // (h_i, H_i)
        const HatPair<double> quotient = quotients[i];
        estimate = ntt::fp64_fma(high[i], quotient.second, estimate);
        estimate = ntt::fp64_fma(low[i], quotient.first, estimate);
        sum = mad_low(b[i], hat.first, mad_low(a[i], hat.second, sum));
      }
      const u64 p = c.target_moduli[t].value;
      destination[static_cast<std::size_t>(c.target_offsets[t]) * n + position] =
          canonical_of_close(mad_low(rounded_word(-estimate), p, sum), p);
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
      if constexpr (S <= kMaxCentredSources) {
        if (c.centred_estimate) {
          return convert_centred<S, TargetsPerSlice>(c, source, destination, k, log_n, first_target);
        }
      }
      convert_split<S, TargetsPerSlice>(c, source, destination, k, log_n, first_target);
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
