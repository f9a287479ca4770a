// Bit-exact verification of a backend against the radix2_indexed CPU oracle,
// shared by `fhelium ntt verify`, the tests and the recommender's
// correctness gate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fhe/ntt/backend.h"

namespace fhe::ntt {

struct VerifyResult {
  bool forward_exact = false;    // forward output equals the oracle's word for word
  bool inverse_exact = false;    // candidate inverse of the oracle output gives back the input
  bool roundtrip_exact = false;  // inverse(forward(x)) == x on the candidate alone
  std::size_t mismatched_words = 0;  // forward mismatches
  std::size_t first_mismatch_row = 0, first_mismatch_index = 0;
  // When a check fails: the first row where one differs (forward, else
  // inverse, else roundtrip), the row that reproduces the failure alone.
  std::size_t first_failing_row = 0;
  bool passed() const { return forward_exact && inverse_exact && roundtrip_exact; }
};

// `input` holds rows.count x N words reduced into the rows' moduli. The
// oracle is a CPU radix2_indexed plan over the same moduli.
VerifyResult verify_against_oracle(const NttPlan& candidate, const NttPlan& oracle,
                                   const std::vector<std::uint64_t>& input, RowRange rows);

}  // namespace fhe::ntt
