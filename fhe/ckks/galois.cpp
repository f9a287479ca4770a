// Galois elements and their NTT-domain permutation tables.
#include "fhe/ckks/galois.h"

#include <string>

#include "fhe/arith/modarith.h"
#include "fhe/core/error.h"
#include "fhe/ntt/twiddles.h"

namespace fhe {

std::uint64_t galois_element_for_step(int step, int log_n) {
  const std::int64_t slots = std::int64_t{1} << (log_n - 1);
  const std::int64_t reduced = ((step % slots) + slots) % slots;
  return pow_mod<std::uint64_t>(5, static_cast<std::uint64_t>(reduced), std::uint64_t{2} << log_n);
}

std::vector<std::uint32_t> galois_ntt_permutation(std::uint64_t galois_element, int log_n) {
  const std::uint64_t n = std::uint64_t{1} << log_n;
  const std::uint64_t two_n = 2 * n;
  if (galois_element % 2 == 0 || galois_element >= two_n) {
    throw InvalidArgument("Galois element " + std::to_string(galois_element) +
                          " is not an odd number below 2N = " + std::to_string(two_n));
  }
  std::vector<std::uint32_t> table(n);
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t exponent = 2 * ntt::bit_reverse(static_cast<std::uint32_t>(k), log_n) + 1;
    const std::uint64_t image = (galois_element * exponent) % two_n;  // odd
    table[k] = ntt::bit_reverse(static_cast<std::uint32_t>((image - 1) / 2), log_n);
  }
  return table;
}

void apply_galois_ntt(const RnsPoly& in, const std::vector<std::uint32_t>& table, RnsPoly& out) {
  if (!in.ntt_form() || table.size() != in.n()) {
    throw InvalidArgument("apply_galois_ntt: input must be in NTT form with N = table size");
  }
  if (out.first_row() != in.first_row() || out.row_count() != in.row_count() || out.n() != in.n()) {
    out = RnsPoly(in.first_row(), in.row_count(), in.n(), true);
  }
  out.set_ntt_form(true);
  for (std::size_t id = in.first_row(); id < in.end_row(); ++id) {
    const std::uint64_t* source = in.row(id);
    std::uint64_t* target = out.row(id);
    for (std::size_t k = 0; k < in.n(); ++k) target[k] = source[table[k]];
  }
}

}  // namespace fhe
