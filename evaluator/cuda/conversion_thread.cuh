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
// - for a target below 2^42 when every source is below 2^50
//   (DeviceConversion::fp64_sources), in double precision
//   (fhe/ntt/cuda/fp64_arith.cuh): the centred digits y~_i (|y~_i| <= q_i/2
//   < 2^49, exact doubles), each term y~_i [qhat_i]_(p_t) one product mod
//   p_t (|term| < 0.63 p_t), the sum (below 8 * 0.63 p_t < 2^46) reduced
//   once and made canonical: about half the instructions of the other.
//   Such conversions keep the y~_i (as double bits) and recover y_i from
//   them for their wide targets. Up to kMaxFp64Sources sources: with more,
//   the 80-register kernels spilled (196 bytes with 8).
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

inline constexpr int kMaxFp64Sources = 4;

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

template <int S, int TargetsPerSlice, bool Fp64Sources>
FHE_HD void convert_sources(const DeviceConversion& c, const std::uint64_t* __restrict__ source,
                            std::uint64_t* __restrict__ destination, std::size_t k, int log_n, int first_target) {
  using u64 = std::uint64_t;
  using u128 = unsigned __int128;
  namespace ntt = fhe::ntt::gpu;
  const std::size_t n = std::size_t{1} << log_n, half = n >> 1;
  const u64* src = source + static_cast<std::size_t>(c.source_offset_rows) * n;
  u64 y[kConversionCoefficients][S];  // y_i, or with Fp64Sources the bits of y~_i
  std::uint32_t negatives[kConversionCoefficients] = {};
#pragma unroll
  for (int i = 0; i < S; ++i) {
    const u64 q = c.source_moduli[i].value, w = c.hat_inverse[i], w_shoup = c.hat_inverse_shoup[i];
#pragma unroll
    for (unsigned j = 0; j < kConversionCoefficients; ++j) {
      const u64 yi = mul_shoup(src[static_cast<std::size_t>(i) * n + k + j * half], w, w_shoup, q);
      const bool negative = yi > q / 2;
      negatives[j] += negative ? 1 : 0;
      if constexpr (Fp64Sources) {
        const double centred = ntt::fp64_of_word(yi);
        y[j][i] = ntt::bits_of_fp64(negative ? ntt::fp64_add(centred, -ntt::fp64_of_word(q)) : centred);
      } else {
        y[j][i] = yi;
      }
    }
  }
  const int last = std::min(c.targets, first_target + TargetsPerSlice);
  for (int t = first_target; t < last; ++t) {
    const u64 p = c.target_moduli[t].value;
    u64* out = destination + static_cast<std::size_t>(c.target_offsets[t]) * n;
    if constexpr (Fp64Sources) {
      const double p_inverse = c.target_inverse[t];
      if (p_inverse != 0) {
        const ntt::Fp64Arith ar(p, p_inverse);
        double hat[S];
        load_hats<S>(c.hat_fp64 + static_cast<std::size_t>(t) * S, hat);
        double sum[kConversionCoefficients] = {};
#pragma unroll
        for (int i = 0; i < S; ++i) {
          const auto w = ar.pair(hat[i]);
#pragma unroll
          for (unsigned j = 0; j < kConversionCoefficients; ++j) {
            sum[j] = ntt::fp64_add(sum[j], ar.product(ntt::fp64_of_bits(y[j][i]), w));
          }
        }
#pragma unroll
        for (unsigned j = 0; j < kConversionCoefficients; ++j) out[k + j * half] = ar.canonical(ar.reduce(sum[j]));
        continue;
      }
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
      for (unsigned j = 0; j < kConversionCoefficients; ++j) {
        u64 yi = y[j][i];
        if constexpr (Fp64Sources) {  // y_i = y~_i, or y~_i + q_i when negative
          const double centred = ntt::fp64_of_bits(yi);
          const double q = ntt::fp64_of_word(c.source_moduli[i].value);
          yi = ntt::word_of_fp64(centred, centred < 0 ? ntt::fp64_add(q, ntt::kTwo52) : ntt::kTwo52);
        }
        sum[j] += static_cast<u128>(yi) * h;
      }
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
