// Offsets of the strict radix twiddle layout.
#include "fhe/ntt/radix_layout.h"

namespace fhe::ntt {

RadixLayout make_radix_layout(int log_n, int radix_bits) {
  RadixLayout layout;
  layout.log_n = log_n;
  layout.radix_bits = radix_bits;
  const int digits = log_n / radix_bits;
  std::size_t offset = 0;
  for (int d = 0; d < digits; ++d) {
    layout.digit_offsets.push_back(offset);
    offset += (std::size_t{1} << (d * radix_bits)) * (layout.radix() - 1);
  }
  layout.digit_offsets.push_back(offset);
  return layout;
}

}  // namespace fhe::ntt
