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

// y_i = [x_i * qhat_i^-1]_(q_i) of source i, as the sums take it: the word,
// or with Fp64Sources the bits of the centred digit y~_i. `negative` says
// y_i > q_i / 2.
template <bool Fp64Sources>
FHE_HD std::uint64_t lift_source(const DeviceConversion& c, int i, std::uint64_t x, bool& negative) {
  namespace ntt = fhe::ntt::gpu;
  const std::uint64_t q = c.source_moduli[i].value;
  const std::uint64_t yi = mul_shoup(x, c.hat_inverse[i], c.hat_inverse_shoup[i], q);
  negative = yi > q / 2;
  if constexpr (Fp64Sources) {
    const double centred = ntt::fp64_of_word(yi);
    return ntt::bits_of_fp64(negative ? ntt::fp64_add(centred, -ntt::fp64_of_word(q)) : centred);
  } else {
    return yi;
  }
}

// y_i from a double-precision lift: y~_i, or y~_i + q_i when negative.
FHE_HD std::uint64_t word_of_lift(const DeviceConversion& c, int i, std::uint64_t bits) {
  namespace ntt = fhe::ntt::gpu;
  const double centred = ntt::fp64_of_bits(bits);
  const double q = ntt::fp64_of_word(c.source_moduli[i].value);
  return ntt::word_of_fp64(centred, centred < 0 ? ntt::fp64_add(q, ntt::kTwo52) : ntt::kTwo52);
}

// One target's words j < J from the lifts y(j, i) of sources i < sources
// (MaxS bounds it at compile time), in double precision: hat(i) =
// [qhat_i]_(p_t) as a double; out(j, word) takes each word. Source by
// source, so one constant serves the J words.
template <int MaxS, int J, typename HatAt, typename Lift, typename Out>
FHE_HD void fp64_target_words(const fhe::ntt::gpu::Fp64Arith& ar, int sources, HatAt&& hat, Lift&& y, Out&& out) {
  namespace ntt = fhe::ntt::gpu;
  double sum[J] = {};
#pragma unroll
  for (int i = 0; i < MaxS; ++i) {
    if (i >= sources) break;
    const auto w = ar.pair(hat(i));
#pragma unroll
    for (int j = 0; j < J; ++j) sum[j] = ntt::fp64_add(sum[j], ar.product(ntt::fp64_of_bits(y(j, i)), w));
  }
#pragma unroll
  for (int j = 0; j < J; ++j) out(j, ar.canonical(ar.reduce(sum[j])));
}

// The same in 128 bits with the Montgomery-form constants: hat(i) =
// [qhat_i R]_(p_t), plus negatives(j) times [-Q R]_(p_t), reduced once.
template <int MaxS, int J, typename HatAt, typename Negatives, typename Lift, typename Out>
FHE_HD void montgomery_target_words(const DeviceConversion& c, int t, int sources, HatAt&& hat,
                                    Negatives&& negatives, Lift&& y, Out&& out) {
  using u64 = std::uint64_t;
  using u128 = unsigned __int128;
  const u64 minus_q = c.minus_q_montgomery[t];
  u128 sum[J];
#pragma unroll
  for (int j = 0; j < J; ++j) sum[j] = static_cast<u64>(negatives(j)) * minus_q;
#pragma unroll
  for (int i = 0; i < MaxS; ++i) {
    if (i >= sources) break;
    const u64 h = hat(i);
#pragma unroll
    for (int j = 0; j < J; ++j) sum[j] += static_cast<u128>(y(j, i)) * h;
  }
  const u64 p = c.target_moduli[t].value, factor = c.target_factors[t];
#pragma unroll
  for (int j = 0; j < J; ++j) {
    out(j, montgomery_reduce(static_cast<u64>(sum[j] >> 64), static_cast<u64>(sum[j]), p, factor));
  }
}

template <int S, int TargetsPerSlice, bool Fp64Sources>
FHE_HD void convert_sources(const DeviceConversion& c, const std::uint64_t* __restrict__ source,
                            std::uint64_t* __restrict__ destination, std::size_t k, int log_n, int first_target) {
  using u64 = std::uint64_t;
  namespace ntt = fhe::ntt::gpu;
  constexpr int J = kConversionCoefficients;
  const std::size_t n = std::size_t{1} << log_n, half = n >> 1;
  const u64* src = source + static_cast<std::size_t>(c.source_offset_rows) * n;
  u64 y[J][S];  // y_i, or with Fp64Sources the bits of y~_i
  std::uint32_t negatives[J] = {};
#pragma unroll
  for (int i = 0; i < S; ++i) {
#pragma unroll
    for (int j = 0; j < J; ++j) {
      bool negative;
      y[j][i] = lift_source<Fp64Sources>(c, i, src[static_cast<std::size_t>(i) * n + k + j * half], negative);
      negatives[j] += negative ? 1 : 0;
    }
  }
  const int last = std::min(c.targets, first_target + TargetsPerSlice);
  for (int t = first_target; t < last; ++t) {
    u64* out = destination + static_cast<std::size_t>(c.target_offsets[t]) * n;
    const auto store = [&](int j, u64 word) { out[k + j * half] = word; };
    if constexpr (Fp64Sources) {
      const double p_inverse = c.target_inverse[t];
      if (p_inverse != 0) {
        const double* hat = c.hat_fp64 + static_cast<std::size_t>(t) * S;
        fp64_target_words<S, J>(ntt::Fp64Arith(c.target_moduli[t].value, p_inverse), S,
                                [&](int i) { return hat[i]; }, [&](int j, int i) { return y[j][i]; }, store);
        continue;
      }
    }
    const u64* hat = c.hat_montgomery + static_cast<std::size_t>(t) * S;
    montgomery_target_words<S, J>(
        c, t, S, [&](int i) { return hat[i]; }, [&](int j) { return negatives[j]; },
        [&](int j, int i) {
          if constexpr (Fp64Sources) return word_of_lift(c, i, y[j][i]);
          return y[j][i];
        },
        store);
  }
}

// One dispatch on the source count and the sums (uniform per block). The
// host builds at most kMaxConversionSources sources.
template <int TargetsPerSlice>
FHE_HD void convert_coefficients(const DeviceConversion& c, const std::uint64_t* source, std::uint64_t* destination,
                                 std::size_t k, int log_n, int first_target) {
  const auto run = [&]<int S>() {
    if constexpr (S <= kMaxFp64Sources) {
      if (c.fp64_sources) {
        return convert_sources<S, TargetsPerSlice, true>(c, source, destination, k, log_n, first_target);
      }
    }
    convert_sources<S, TargetsPerSlice, false>(c, source, destination, k, log_n, first_target);
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
