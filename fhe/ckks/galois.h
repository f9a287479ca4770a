// Galois automorphisms X -> X^g of Z[X]/(X^N + 1) and their action on NTT
// (bit-reversed) rows. Rotation by k slots is g = 5^k mod 2N (slot j of the
// result holds slot j + k of the input); conjugation is g = 2N - 1.
//
// NTT index k holds a(psi^(2 br(k) + 1)), so a(X^g) at index k is a at the
// odd exponent g (2 br(k) + 1) mod 2N = 2m + 1, i.e. index br(m): the
// automorphism is the pure permutation out[k] = in[table[k]].
#pragma once

#include <cstdint>
#include <vector>

#include "fhe/ckks/rns_poly.h"

namespace fhe {

// g for a left rotation by `step` slots (any sign; reduced mod N/2).
std::uint64_t galois_element_for_step(int step, int log_n);
inline std::uint64_t conjugation_galois_element(int log_n) {
  return (std::uint64_t{2} << log_n) - 1;
}

// table[k] = the input index that lands at output index k (odd g < 2N).
std::vector<std::uint32_t> galois_ntt_permutation(std::uint64_t galois_element, int log_n);

// out = in(X^g) for an NTT-form polynomial; out takes in's rows and form.
void apply_galois_ntt(const RnsPoly& in, const std::vector<std::uint32_t>& table, RnsPoly& out);

}  // namespace fhe
