// An RNS polynomial: rows x N 64-bit words, row-major and contiguous. The
// rows are the contiguous range [first_row, first_row + row_count) of the
// preset's row ids, so a level-l polynomial over Q holds ids l..L and the
// whole buffer goes to one NttPlan::forward/inverse call over rows().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhe/core/huge_page_allocator.h"
#include "fhe/ntt/backend.h"

namespace fhe {

class RnsPoly {
 public:
  // Large: on huge pages (fhe/core/huge_page_allocator.h).
  using Words = std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>>;

  RnsPoly() = default;
  // Zero polynomial over rows [first_row, first_row + row_count).
  RnsPoly(std::size_t first_row, std::size_t row_count, std::size_t n, bool ntt_form);

  std::size_t first_row() const { return first_row_; }
  std::size_t row_count() const { return row_count_; }
  std::size_t end_row() const { return first_row_ + row_count_; }
  std::size_t n() const { return n_; }
  ntt::RowRange rows() const { return {first_row_, row_count_}; }
  bool has_row(std::size_t row_id) const { return row_id >= first_row_ && row_id < end_row(); }

  // True when the rows hold NTT (evaluation, bit-reversed) values.
  bool ntt_form() const { return ntt_form_; }
  void set_ntt_form(bool ntt_form) { ntt_form_ = ntt_form; }

  // The N words of a row, addressed by preset row id.
  std::uint64_t* row(std::size_t row_id) { return words_.data() + (row_id - first_row_) * n_; }
  const std::uint64_t* row(std::size_t row_id) const {
    return words_.data() + (row_id - first_row_) * n_;
  }
  std::uint64_t* data() { return words_.data(); }
  const std::uint64_t* data() const { return words_.data(); }
  const Words& words() const { return words_; }

  // A copy of a sub-range of the rows (throws InvalidArgument outside them).
  RnsPoly copy_rows(ntt::RowRange rows) const;

  bool operator==(const RnsPoly&) const = default;

 private:
  std::size_t first_row_ = 0;
  std::size_t row_count_ = 0;
  std::size_t n_ = 0;
  bool ntt_form_ = false;
  Words words_;
};

}  // namespace fhe
