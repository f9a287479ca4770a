// The digit layout of hybrid key switching.
#include "fhe/ckks/keys.h"

#include <algorithm>

namespace fhe {

std::vector<ntt::RowRange> key_switch_digits(const Preset& preset) {
  std::vector<ntt::RowRange> digits;
  const std::size_t width = static_cast<std::size_t>(preset.p_count);
  const std::size_t scale_primes = static_cast<std::size_t>(preset.levels);
  for (std::size_t first = 0; first < scale_primes; first += width) {
    digits.push_back({first, std::min(width, scale_primes - first)});
  }
  digits.push_back({scale_primes, 1});  // the base prime alone
  return digits;
}

}  // namespace fhe
