// Plaintext rows stored as the keys' narrow rows are (switch_key_layout.h):
// the leading rows whose primes are below kNarrowKeyRowBound hold the low 32
// bits of each word in one plane and its high 16 bits in another (6 bytes a
// word), the other rows 64-bit words. For plaintexts that a kernel streams
// from DRAM: the lazy BSGS's inner sums read 128 diagonals over the QP rows,
// 22 % fewer bytes at the default preset. The words are the host
// plaintext's; only their storage differs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "fhe/core/host_device.h"

namespace fhe {

struct PackedRows {
  std::size_t rows = 0;         // rows of n words
  std::size_t narrow_rows = 0;  // the leading rows stored in 6 bytes a word
  std::size_t n = 0;

  FHE_HD std::size_t bytes() const { return narrow_rows * n * 6 + (rows - narrow_rows) * n * 8; }
  // Word k of row `row` of the packed rows at `base` (8-byte aligned).
  FHE_HD std::uint64_t word(const std::uint8_t* base, std::size_t row, std::size_t k) const {
    const std::size_t narrow_words = narrow_rows * n;
    if (row < narrow_rows) {
      const std::size_t i = row * n + k;
      const auto* low = reinterpret_cast<const std::uint32_t*>(base);
      const auto* high = reinterpret_cast<const std::uint16_t*>(base + narrow_words * 4);
      return std::uint64_t{high[i]} << 32 | low[i];
    }
    return reinterpret_cast<const std::uint64_t*>(base + narrow_words * 6)[(row - narrow_rows) * n + k];
  }
};

// The layout of rows over `primes` (by row) of n words: the leading rows
// whose primes are below kNarrowKeyRowBound are narrow, as in a key.
PackedRows packed_rows(std::span<const std::uint64_t> primes, std::size_t n);

// Rows x n words (row-major) into the layout's bytes; InvalidArgument when
// a narrow row's word is not below 2^48 or the sizes disagree.
void pack_rows(std::span<const std::uint64_t> words, const PackedRows& layout, std::span<std::uint8_t> out);

}  // namespace fhe
