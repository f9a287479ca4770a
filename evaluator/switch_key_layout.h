// How a key-switching key's words lie in device memory. A key has one
// component per digit, (b, a) over every QP row of n words. A thread of
// the key inner products reads b and a at one (row, k) of every digit, so
// a digit keeps both halves side by side. The words of a row whose prime is
// below 2^48 fit 6 bytes: those rows (the leading `narrow_rows`: the 40-bit
// scale primes of slots32768-scale40, every row of an int32 preset) hold at
// each (row, k) the low 32 bits of b and of a (8 bytes, one vector load) in
// one plane and their high 16 bits (4 bytes, one load) in another: 12 bytes
// and two loads for the pair, as two 64-bit words took 16 bytes and two
// loads. The other rows hold b's rows, then a's, as 64-bit words. The key
// inner products stream whole keys from DRAM, so the key's bytes are their
// floor: at the default preset 34 of the 39 rows are narrow and a key takes
// 22 % fewer bytes. Known from the preset alone (memory plans count it
// without a GPU); the words are the host key's, only their storage differs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "fhe/core/host_device.h"
#include "fhe/params/preset.h"

namespace fhe {

// Rows of primes below this bound are stored in 6 bytes a word.
inline constexpr std::uint64_t kNarrowKeyRowBound = std::uint64_t{1} << 48;

struct SwitchKeyLayout {
  std::size_t rows = 0;         // QP rows of a component
  std::size_t narrow_rows = 0;  // its leading rows stored as 32 + 16 bits a word
  std::size_t n = 0;            // words a row

  // Where (b, a) at word k of row `row` lie in a digit, in bytes from its
  // start: in a narrow row, the low halves at `first` (8 bytes) and the
  // high 16 bits at `second` (4 bytes: b's, then a's); in a wide row, b's
  // word at `first` and a's at `second`.
  struct Place {
    std::size_t first, second;
    bool narrow;
  };

  FHE_HD std::size_t digit_bytes() const { return narrow_rows * n * 12 + (rows - narrow_rows) * n * 16; }
  FHE_HD Place place(std::size_t row, std::size_t k) const {
    if (row < narrow_rows) return {(row * n + k) * 8, narrow_rows * n * 8 + (row * n + k) * 4, true};
    const std::size_t wide = narrow_rows * n * 12 + ((row - narrow_rows) * n + k) * 8;
    return {wide, wide + (rows - narrow_rows) * n * 8, false};
  }
};

// The layout of keys over `primes` (by row id) of n words: the leading rows
// whose primes are below kNarrowKeyRowBound are narrow.
SwitchKeyLayout switch_key_layout(std::span<const std::uint64_t> primes, std::size_t n);
// The preset's: over its QP rows (scale primes, base prime, P primes).
SwitchKeyLayout switch_key_layout(const Preset& preset);

// One key-switching key of the preset on the device: dnum digits of (b, a)
// (305 MiB at the default preset; 390 MiB as 64-bit words).
std::size_t device_switch_key_bytes(const Preset& preset);

// One digit's (b, a) words (rows x n each, row-major) into its layout's
// bytes (the kernels read them back with terms::load_key_pair, key_terms.cuh).
void pack_switch_key_digit(std::span<const std::uint64_t> b, std::span<const std::uint64_t> a,
                           const SwitchKeyLayout& layout, std::span<std::uint8_t> out);
// Only rows [first_row, first_row + row_count) of the digit, into their
// places in `out` (the whole digit's bytes): disjoint row ranges may be
// packed at once, on several threads.
void pack_switch_key_rows(std::span<const std::uint64_t> b, std::span<const std::uint64_t> a,
                          const SwitchKeyLayout& layout, std::size_t first_row, std::size_t row_count,
                          std::span<std::uint8_t> out);

}  // namespace fhe
