// Constants and the coefficient loop of the fast basis conversion.
#include "evaluator/basis_conversion.h"

#include <cmath>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

BasisConversion make_basis_conversion(std::span<const std::uint64_t> source_primes,
                                      std::span<const std::uint64_t> target_primes,
                                      std::vector<std::size_t> target_offsets) {
  if (target_offsets.size() != target_primes.size()) {
    throw InvalidArgument("basis conversion: " + std::to_string(target_offsets.size()) +
                          " offsets for " + std::to_string(target_primes.size()) + " targets");
  }
  double max_bits = 0;
  for (auto span : {source_primes, target_primes}) {
    for (std::uint64_t q : span) max_bits = std::max(max_bits, std::log2(static_cast<double>(q)));
  }
  // In bits: sources * max(q)^2 < 2^128 and sources * max(q) < 3 * 2^64,
  // each with a margin for the doubles' rounding.
  const double log_sources = std::log2(static_cast<double>(source_primes.size()));
  if (2 * max_bits + log_sources >= 127.5 || max_bits + log_sources >= 64 + std::log2(3.0) - 0.01) {
    throw InvalidArgument("basis conversion: " + std::to_string(source_primes.size()) +
                          " sources of up to " + std::to_string(max_bits) +
                          " bits overflow the 128-bit accumulator or its Montgomery reduction");
  }
  BasisConversion c;
  const std::size_t sources = source_primes.size();
  for (std::size_t i = 0; i < sources; ++i) {
    const std::uint64_t q = source_primes[i];
    c.source_moduli.emplace_back(q);
    std::uint64_t hat = 1;  // qhat_i mod q_i
    for (std::size_t k = 0; k < sources; ++k) {
      if (k != i) hat = mul_mod_exact<std::uint64_t>(hat, source_primes[k] % q, q);
    }
    c.hat_inverse.push_back(inv_mod<std::uint64_t>(hat, q));
    c.hat_inverse_shoup.push_back(shoup_companion<std::uint64_t>(c.hat_inverse.back(), q));
  }
  for (std::uint64_t p : target_primes) {
    c.target_moduli.emplace_back(p);
    c.target_factors.push_back(montgomery_factor(p));
    std::uint64_t q_source = 1 % p;
    for (std::uint64_t q : source_primes) q_source = mul_mod_exact<std::uint64_t>(q_source, q % p, p);
    c.minus_q_montgomery.push_back(to_montgomery(neg_mod<std::uint64_t>(q_source, p), p));
    for (std::size_t i = 0; i < sources; ++i) {
      std::uint64_t hat = 1 % p;  // qhat_i mod p
      for (std::size_t k = 0; k < sources; ++k) {
        if (k != i) hat = mul_mod_exact<std::uint64_t>(hat, source_primes[k] % p, p);
      }
      c.hat_montgomery.push_back(to_montgomery(hat, p));
    }
  }
  c.target_offsets = std::move(target_offsets);
  return c;
}

namespace {

// out_t = sum_i y~_i [qhat_i]_(p_t) for every target, where y~_i = y_i - q_i
// when y_i > q_i / 2: the sum of the unsigned y_i [qhat_i]_(p_t) plus one
// [-Q]_(p_t) per negative digit, accumulated exactly in 128 bits with the
// constants in Montgomery form and reduced once (montgomery_reduce removes
// their R). `Sources` > 0 fixes the source count at compile time (the common
// 1..6) so the inner sum unrolls; 0 is the run-time fallback.
template <std::size_t Sources>
void accumulate_targets(const BasisConversion& c, const std::uint64_t* y, std::uint64_t* destination,
                        std::size_t n) {
  const std::size_t sources = Sources > 0 ? Sources : c.source_count();
  std::uint64_t half[Sources > 0 ? Sources : 1];
  std::vector<std::uint64_t> half_dynamic(Sources > 0 ? 0 : sources);
  std::uint64_t* halves = Sources > 0 ? half : half_dynamic.data();
  for (std::size_t i = 0; i < sources; ++i) halves[i] = c.source_moduli[i].value / 2;
  for (std::size_t t = 0; t < c.target_count(); ++t) {
    const std::uint64_t p = c.target_moduli[t].value, factor = c.target_factors[t];
    const std::uint64_t* hat = c.hat_montgomery.data() + t * sources;
    const std::uint64_t minus_q = c.minus_q_montgomery[t];
    std::uint64_t* out = destination + c.target_offsets[t] * n;
    for (std::size_t k = 0; k < n; ++k) {
      unsigned __int128 sum = 0;
      std::uint64_t negatives = 0;
      for (std::size_t i = 0; i < sources; ++i) {
        const std::uint64_t y_i = y[i * n + k];
        sum += static_cast<unsigned __int128>(y_i) * hat[i];
        negatives += y_i > halves[i] ? 1 : 0;
      }
      sum += static_cast<unsigned __int128>(negatives) * minus_q;
      out[k] = montgomery_reduce(static_cast<std::uint64_t>(sum >> 64), static_cast<std::uint64_t>(sum), p, factor);
    }
  }
}

}  // namespace

void BasisConversion::convert(const std::uint64_t* source, std::uint64_t* destination,
                              std::uint64_t* scratch, std::size_t n) const {
  const std::size_t sources = source_count();
  // y_i = [x_i * qhat_i^-1]_(q_i) in [0, q_i), once per source row.
  for (std::size_t i = 0; i < sources; ++i) {
    const std::uint64_t q = source_moduli[i].value;
    const std::uint64_t w = hat_inverse[i], w_shoup = hat_inverse_shoup[i];
    const std::uint64_t* x = source + i * n;
    std::uint64_t* y = scratch + i * n;
    for (std::size_t k = 0; k < n; ++k) y[k] = mul_shoup(x[k], w, w_shoup, q);
  }
  switch (sources) {
    case 1: return accumulate_targets<1>(*this, scratch, destination, n);
    case 2: return accumulate_targets<2>(*this, scratch, destination, n);
    case 3: return accumulate_targets<3>(*this, scratch, destination, n);
    case 4: return accumulate_targets<4>(*this, scratch, destination, n);
    case 5: return accumulate_targets<5>(*this, scratch, destination, n);
    case 6: return accumulate_targets<6>(*this, scratch, destination, n);
    default: return accumulate_targets<0>(*this, scratch, destination, n);
  }
}

}  // namespace fhe
