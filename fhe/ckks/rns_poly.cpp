// RnsPoly construction and row slicing.
#include "fhe/ckks/rns_poly.h"

#include <algorithm>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

RnsPoly::RnsPoly(std::size_t first_row, std::size_t row_count, std::size_t n, bool ntt_form)
    : first_row_(first_row),
      row_count_(row_count),
      n_(n),
      ntt_form_(ntt_form),
      words_(row_count * n, 0) {}

RnsPoly RnsPoly::copy_rows(ntt::RowRange rows) const {
  if (rows.first < first_row_ || rows.first + rows.count > end_row()) {
    throw InvalidArgument("RnsPoly: rows [" + std::to_string(rows.first) + ", " +
                          std::to_string(rows.first + rows.count) + ") are outside the held rows [" +
                          std::to_string(first_row_) + ", " + std::to_string(end_row()) + ")");
  }
  RnsPoly out(rows.first, rows.count, n_, ntt_form_);
  std::copy_n(row(rows.first), rows.count * n_, out.data());
  return out;
}

}  // namespace fhe
