// How a key-switching key's words lie in device memory. A key is
// components (digit d, half h: component 2 d + h, h = 0 for b, 1 for a),
// each over every QP row of n words. The words of a row whose prime is
// below 2^48 fit 6 bytes: those rows (the leading `narrow_rows`: the
// 40-bit scale primes of slots32768-scale40, every row of an int32 preset)
// are stored as two planes, the low 32 bits of every word, then the high
// 16 bits; the other rows as 64-bit words. The key inner products stream
// whole keys from DRAM, so the key's bytes are their floor: at the default
// preset 34 of the 39 rows are narrow and a key takes 22 % fewer bytes.
// Known from the preset alone (memory plans count it without a GPU); the
// words are the host key's, only their storage differs.
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
  std::size_t narrow_rows = 0;  // its leading rows stored as 32 + 16 bits
  std::size_t n = 0;            // words a row

  // Where word k of row `row` lies in a component, in bytes from its start:
  // a narrow row's low 32 bits at `low` and high 16 at `high`, a wide row's
  // 64-bit word at `low`.
  struct Place {
    std::size_t low, high;
    bool narrow;
  };

  FHE_HD std::size_t narrow_plane_bytes() const { return narrow_rows * n * 4; }  // one of the two planes' rows
  FHE_HD std::size_t component_bytes() const {
    return narrow_rows * n * 6 + (rows - narrow_rows) * n * 8;
  }
  FHE_HD Place place(std::size_t row, std::size_t k) const {
    if (row < narrow_rows) return {(row * n + k) * 4, narrow_plane_bytes() + (row * n + k) * 2, true};
    return {narrow_rows * n * 6 + ((row - narrow_rows) * n + k) * 8, 0, false};
  }
};

// The layout of keys over `primes` (by row id) of n words: the leading rows
// whose primes are below kNarrowKeyRowBound are narrow.
SwitchKeyLayout switch_key_layout(std::span<const std::uint64_t> primes, std::size_t n);
// The preset's: over its QP rows (scale primes, base prime, P primes).
SwitchKeyLayout switch_key_layout(const Preset& preset);

// One key-switching key of the preset on the device: dnum x (b, a)
// components (305 MiB at the default preset; 390 MiB as 64-bit words).
std::size_t device_switch_key_bytes(const Preset& preset);

// One component's words (rows x n, row-major) into its layout's bytes
// (the kernels read them back with terms::key_word, key_terms.cuh).
void pack_switch_key_component(std::span<const std::uint64_t> words, const SwitchKeyLayout& layout,
                               std::span<std::uint8_t> out);

}  // namespace fhe
