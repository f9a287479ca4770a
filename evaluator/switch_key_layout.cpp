// A key-switching key's device layout (switch_key_layout.h).
#include "evaluator/switch_key_layout.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

SwitchKeyLayout switch_key_layout(std::span<const std::uint64_t> primes, std::size_t n) {
  SwitchKeyLayout layout;
  layout.rows = primes.size();
  layout.n = n;
  while (layout.narrow_rows < primes.size() && primes[layout.narrow_rows] < kNarrowKeyRowBound) {
    ++layout.narrow_rows;
  }
  return layout;
}

SwitchKeyLayout switch_key_layout(const Preset& preset) {
  return switch_key_layout(preset.qp_primes(), preset.n());
}

void pack_switch_key_rows(std::span<const std::uint64_t> b, std::span<const std::uint64_t> a,
                          const SwitchKeyLayout& layout, std::size_t first_row, std::size_t row_count,
                          std::span<std::uint8_t> out) {
  const std::size_t words = layout.rows * layout.n;
  if (b.size() != words || a.size() != words || out.size() != layout.digit_bytes() || first_row > layout.rows ||
      row_count > layout.rows - first_row) {
    throw InvalidArgument("pack_switch_key_rows: rows " + std::to_string(first_row) + " + " +
                          std::to_string(row_count) + " of " + std::to_string(b.size()) + " + " +
                          std::to_string(a.size()) + " words into " + std::to_string(out.size()) +
                          " bytes, the layout has " + std::to_string(layout.rows) + " rows of " +
                          std::to_string(layout.n));
  }
  const std::size_t narrow_words = layout.narrow_rows * layout.n;
  const std::size_t begin = first_row * layout.n, end = (first_row + row_count) * layout.n;
  for (std::size_t i = begin; i < std::min(end, narrow_words); ++i) {
    if (b[i] >= kNarrowKeyRowBound || a[i] >= kNarrowKeyRowBound) {
      throw InvalidArgument("pack_switch_key_rows: word " + std::to_string(i) + " of a narrow row is " +
                            std::to_string(std::max(b[i], a[i])) + ", not below 2^48");
    }
    const std::uint32_t low[2] = {static_cast<std::uint32_t>(b[i]), static_cast<std::uint32_t>(a[i])};
    const std::uint16_t high[2] = {static_cast<std::uint16_t>(b[i] >> 32), static_cast<std::uint16_t>(a[i] >> 32)};
    std::memcpy(out.data() + i * 8, low, 8);
    std::memcpy(out.data() + narrow_words * 8 + i * 4, high, 4);
  }
  const std::size_t wide_begin = std::max(begin, narrow_words);
  if (end <= wide_begin) return;
  // b's wide rows, then a's, after both narrow planes.
  const std::size_t wide_bytes = (words - narrow_words) * 8, offset = (wide_begin - narrow_words) * 8;
  const std::size_t count = (end - wide_begin) * 8;
  std::memcpy(out.data() + narrow_words * 12 + offset, b.data() + wide_begin, count);
  std::memcpy(out.data() + narrow_words * 12 + wide_bytes + offset, a.data() + wide_begin, count);
}

void pack_switch_key_digit(std::span<const std::uint64_t> b, std::span<const std::uint64_t> a,
                           const SwitchKeyLayout& layout, std::span<std::uint8_t> out) {
  pack_switch_key_rows(b, a, layout, 0, layout.rows, out);
}

std::size_t device_switch_key_bytes(const Preset& preset) {
  return static_cast<std::size_t>(preset.dnum()) * switch_key_layout(preset).digit_bytes();
}

}  // namespace fhe
