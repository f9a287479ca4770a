// Twiddle layout of the strict radix-R backends (R = 2^b), shared by the CPU
// and CUDA code: digit d covers forward stages [d*b, (d+1)*b); each of its
// 2^(d*b) butterflies owns R-1 consecutive twiddles, ordered by stage inside
// the butterfly (1, then 2, ..., then R/2 twiddles). One contiguous read per
// radix-R butterfly, about N words per prime in all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhe/ntt/twiddles.h"

namespace fhe::ntt {

struct RadixLayout {
  int log_n = 0;
  int radix_bits = 0;                       // b
  std::vector<std::size_t> digit_offsets;  // start of each digit's table; size D+1

  std::size_t radix() const { return std::size_t{1} << radix_bits; }
  // Index of the twiddle of forward stage `stage`, global group `group`.
  std::size_t index(int stage, std::size_t group) const {
    const int digit = stage / radix_bits;
    const int r = stage % radix_bits;
    const std::size_t butterfly = group >> r;
    const std::size_t within = group & ((std::size_t{1} << r) - 1);
    return digit_offsets[digit] + butterfly * (radix() - 1) + ((std::size_t{1} << r) - 1) + within;
  }
  std::size_t size() const { return digit_offsets.back(); }
};

RadixLayout make_radix_layout(int log_n, int radix_bits);

// The forward or inverse twiddles (and companions) of one prime in that layout.
template <typename Word>
struct RadixTwiddles {
  std::vector<Word> values, companions;
};

template <typename Word>
RadixTwiddles<Word> make_radix_twiddles(const RadixLayout& layout, const PrimeTwiddles<Word>& t,
                                        bool forward) {
  RadixTwiddles<Word> out;
  out.values.resize(layout.size());
  out.companions.resize(layout.size());
  const auto& values = forward ? t.forward : t.inverse;
  const auto& companions = forward ? t.forward_shoup : t.inverse_shoup;
  for (int stage = 0; stage < layout.log_n; ++stage) {
    const std::size_t groups = std::size_t{1} << stage;
    for (std::size_t group = 0; group < groups; ++group) {
      const std::size_t i = layout.index(stage, group);
      out.values[i] = values[groups + group];
      out.companions[i] = companions[groups + group];
    }
  }
  return out;
}

}  // namespace fhe::ntt
