// RnsBasis: Barrett constants of the preset's rows.
#include "fhe/ckks/rns_basis.h"

namespace fhe {

RnsBasis::RnsBasis(const Preset& preset) {
  for (std::uint64_t q : preset.qp_primes()) moduli_.emplace_back(q);
}

}  // namespace fhe
