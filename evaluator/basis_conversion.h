// Fast RNS basis conversion, the one routine behind ModUp, ModDown and
// rescale. For x given by residues x_i mod q_i (the source primes) it lifts
// with CENTERED digits y~_i = [x_i * qhat_i^-1]_(q_i) taken in (-q_i/2, q_i/2]:
//   out_t = sum_i y~_i * [qhat_i]_(p_t)  mod p_t,  qhat_i = prod_(k != i) q_k,
// which is x~ + alpha * Q_source mod p_t, where x~ is the centered
// representative of x and |alpha| <= (number of sources) / 2. Centering
// matters: a lift in [0, Q) has mean Q/2, a bias that the canonical
// embedding concentrates into a few slots (10x the noise there); and with
// one source the conversion is exact, so a division by the dropped prime
// rounds to nearest with no extra constant.
// A plain data object so GPU code can upload the same constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fhe/arith/modarith.h"

namespace fhe {

struct BasisConversion {
  std::vector<Modulus<std::uint64_t>> source_moduli;
  std::vector<std::uint64_t> hat_inverse;        // [qhat_i^-1]_(q_i), per source
  std::vector<std::uint64_t> hat_inverse_shoup;  // Shoup companions
  std::vector<Modulus<std::uint64_t>> target_moduli;
  std::vector<std::size_t> target_offsets;       // row of target t in the destination buffer
  // Per target, in Montgomery form (times R = 2^64 mod p_t): each output's
  // exact 128-bit sum then costs one montgomery_reduce (two 64-bit
  // products) instead of a Barrett reduction (four). The CUDA conversion
  // kernels upload these very words.
  std::vector<std::uint64_t> hat_montgomery;      // [t * sources + i] = [qhat_i R]_(p_t)
  std::vector<std::uint64_t> minus_q_montgomery;  // [t] = [-Q_source R]_(p_t), once per negative digit
  std::vector<std::uint64_t> target_factors;      // [t] = montgomery_factor(p_t)

  std::size_t source_count() const { return source_moduli.size(); }
  std::size_t target_count() const { return target_moduli.size(); }

  // `source`: source_count rows of n coefficient-form words (row-major);
  // target t is written to destination + target_offsets[t] * n; `scratch`
  // holds at least source_count * n words. No allocation.
  void convert(const std::uint64_t* source, std::uint64_t* destination, std::uint64_t* scratch,
               std::size_t n) const;
};

// Throws InvalidArgument when the 128-bit accumulation could overflow
// (sources * max(q)^2 >= 2^128), when a sum could leave the Montgomery
// reduction's range (sources * max(q) must stay below 3 * 2^64: 8 sources
// of 62 bits, 24 of 60) or when a target offset list has the wrong size.
BasisConversion make_basis_conversion(std::span<const std::uint64_t> source_primes,
                                      std::span<const std::uint64_t> target_primes,
                                      std::vector<std::size_t> target_offsets);

}  // namespace fhe
