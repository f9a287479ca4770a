// Forward, inverse and roundtrip comparison against the oracle.
#include "fhe/ntt/verify.h"

#include <algorithm>

#include "fhe/core/error.h"
#include "fhe/ntt/host_transform.h"

namespace fhe::ntt {
namespace {

// The first row of `rows` (n words each) where a and b, which differ, differ.
std::size_t first_differing_row(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                                RowRange rows, std::size_t n) {
  const auto where = std::mismatch(a.begin(), a.end(), b.begin()).first;
  return rows.first + static_cast<std::size_t>(where - a.begin()) / n;
}

}  // namespace

VerifyResult verify_against_oracle(const NttPlan& candidate, const NttPlan& oracle,
                                   const std::vector<std::uint64_t>& input, RowRange rows) {
  if (candidate.moduli() != oracle.moduli() || candidate.log_n() != oracle.log_n()) {
    throw InvalidArgument("verify: candidate and oracle plans cover different rings");
  }
  VerifyResult result;
  std::vector<std::uint64_t> expected = input;
  transform_on_host_data(oracle, expected, rows, Direction::forward);
  std::vector<std::uint64_t> actual = input;
  transform_on_host_data(candidate, actual, rows, Direction::forward);

  const std::size_t n = candidate.n();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != expected[i]) {
      if (result.mismatched_words == 0) {
        result.first_mismatch_row = rows.first + i / n;
        result.first_mismatch_index = i % n;
      }
      ++result.mismatched_words;
    }
  }
  result.forward_exact = result.mismatched_words == 0;

  // The candidate's inverse on the oracle's forward output must give back the input.
  std::vector<std::uint64_t> back = expected;
  transform_on_host_data(candidate, back, rows, Direction::inverse);
  result.inverse_exact = back == input;

  transform_on_host_data(candidate, actual, rows, Direction::inverse);
  result.roundtrip_exact = actual == input;

  if (!result.forward_exact) {
    result.first_failing_row = result.first_mismatch_row;
  } else if (!result.inverse_exact) {
    result.first_failing_row = first_differing_row(back, input, rows, n);
  } else if (!result.roundtrip_exact) {
    result.first_failing_row = first_differing_row(actual, input, rows, n);
  }
  return result;
}

}  // namespace fhe::ntt
