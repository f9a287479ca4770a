// The moduli of all QP rows of a preset with their Barrett constants, indexed
// by preset row id (Q scale primes, the base prime, then the P primes). The
// CKKS layer computes in 64-bit words for every preset: int32 presets have
// primes below 2^30, whose fully reduced results are the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhe/arith/modarith.h"
#include "fhe/params/preset.h"

namespace fhe {

class RnsBasis {
 public:
  explicit RnsBasis(const Preset& preset);

  std::size_t row_count() const { return moduli_.size(); }
  std::uint64_t prime(std::size_t row_id) const { return moduli_[row_id].value; }
  const Modulus<std::uint64_t>& modulus(std::size_t row_id) const { return moduli_[row_id]; }

 private:
  std::vector<Modulus<std::uint64_t>> moduli_;
};

}  // namespace fhe
