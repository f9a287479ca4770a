// Helpers for NTT tests: presets' moduli at a chosen ring size.
#pragma once

#include <cstdint>
#include <vector>

#include "fhe/arith/primes.h"

namespace fhe::testing {

// `count` 60-bit (or 28-bit) NTT primes for ring degree 2^log_n.
inline std::vector<std::uint64_t> ntt_moduli(int log_n, int count, int bits) {
  return largest_ntt_primes(bits, count, std::uint64_t{2} << log_n, {});
}

}  // namespace fhe::testing
