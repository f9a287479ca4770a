// Exact 128-bit sums of products of words below 2^60, accumulated in 30-bit
// limbs: a x b = (a1 b1) 2^60 + (a0 b1 + a1 b0) 2^30 + a0 b0 with a = a1 2^30
// + a0, each partial product below 2^60 and one 32 x 32 -> 64-bit multiply-
// add on the GPU (IMAD.WIDE.U32). The plain 128-bit product of two 64-bit
// words costs the GPU's multiply pipe about twice as much (its low and high
// halves are built separately) plus a carry chain per addition, and the
// basis conversion is bound by that pipe (docs/performance.md, session 9).
// Each of the four accumulators takes one partial product a term, so 16
// terms stay below 2^64 (WideSum::kMaxTerms).
#pragma once

#include <cstdint>

#include "fhe/core/host_device.h"

namespace fhe {

inline constexpr int kWideSumWordBits = 60;

// A word below 2^60 as two 30-bit limbs.
struct Limbs30 {
  std::uint32_t low;
  std::uint32_t high;
};

FHE_HD Limbs30 split_limbs30(std::uint64_t x) {
  return {static_cast<std::uint32_t>(x) & ((1u << 30) - 1u), static_cast<std::uint32_t>(x >> 30)};
}

struct WideSum {
  // kMaxTerms terms of two words below 2^60, plus one small factor (below
  // 2^4) times such a word: each accumulator < 16 (2^30 - 1)^2 + 2^34 < 2^64.
  static constexpr int kMaxTerms = 16;

  std::uint64_t low = 0, low_high = 0, high_low = 0, high = 0;

  FHE_HD void add(Limbs30 a, Limbs30 b) {
    low += static_cast<std::uint64_t>(a.low) * b.low;
    low_high += static_cast<std::uint64_t>(a.low) * b.high;
    high_low += static_cast<std::uint64_t>(a.high) * b.low;
    high += static_cast<std::uint64_t>(a.high) * b.high;
  }

  // small * b for small < 2^4 (a count, such as the conversion's negatives).
  FHE_HD void add_small(std::uint32_t small, Limbs30 b) {
    low += static_cast<std::uint64_t>(small) * b.low;
    low_high += static_cast<std::uint64_t>(small) * b.high;
  }

  // The exact sum as two words.
  FHE_HD void value(std::uint64_t& hi, std::uint64_t& lo) const {
    using u128 = unsigned __int128;
    const u128 sum = static_cast<u128>(low) + ((static_cast<u128>(low_high) + high_low) << 30) +
                     (static_cast<u128>(high) << 60);
    hi = static_cast<std::uint64_t>(sum >> 64);
    lo = static_cast<std::uint64_t>(sum);
  }
};

}  // namespace fhe
