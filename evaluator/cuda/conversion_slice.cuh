// A conversion block's slice of per-target constants staged in shared
// memory (eval_kernels.cu's conversion kernels), FHE_HD so the host
// emulation test (tests/evaluator/gpu/conversion_emulation_test.cpp)
// converts from the same staged view the threads read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/device_conversion.h"
#include "fhe/arith/modarith.h"

namespace fhe::cuda {

// A block's slice of per-target constants, staged in shared memory: the
// target loop then reads shared words instead of generic loads of global
// ones (the DeviceConversion's pointers are generic). The constants are the
// level's upload, never written by a kernel, so the staging runs before the
// wait for the previous kernel. The view indexes the slice from 0.
// Session 23: the level-0 ModUp conversion 115 -> 108 us (ncu clock, 9 %
// fewer instructions), key switch -1.4 %, multiply_relinearize -2.0 %.
template <int TargetsPerSlice, int MaxSources>
struct StagedSlice {
  static constexpr int kHats = TargetsPerSlice * MaxSources;
  // The hat words (plain for the quotient-estimate sums, else Montgomery),
  // hat_quotient, the targets' Modulus (3 words), [-Q R]_(p_t),
  // montgomery_factor(p_t), and the offsets two to a word.
  static constexpr int kWords = 2 * kHats + 5 * TargetsPerSlice + (TargetsPerSlice + 1) / 2;
};

template <int TargetsPerSlice, int MaxSources>
FHE_HD DeviceConversion stage_slice(const DeviceConversion& c, int first_target, std::uint64_t* words, unsigned thread,
                                   unsigned threads) {
  static_assert(sizeof(Modulus<std::uint64_t>) == 3 * sizeof(std::uint64_t));
  constexpr int kHats = StagedSlice<TargetsPerSlice, MaxSources>::kHats;
  const int count = std::min(TargetsPerSlice, c.targets - first_target), hats = count * c.sources;
  std::uint64_t* hat_words = words;
  double* hat_quotient = reinterpret_cast<double*>(words + kHats);
  std::uint64_t* moduli = words + 2 * kHats;
  std::uint64_t* minus_q = moduli + 3 * TargetsPerSlice;
  std::uint64_t* factors = minus_q + TargetsPerSlice;
  auto* offsets = reinterpret_cast<std::uint32_t*>(factors + TargetsPerSlice);
  const std::size_t first_hat = static_cast<std::size_t>(first_target) * c.sources;
  // One hat array: plain for the estimate's sums, Montgomery for the 128-bit
  // ones; fp64_sources says which the threads run (level_constants.cpp).
  const std::uint64_t* global_hats = c.fp64_sources ? c.hat_plain : c.hat_montgomery;
  for (int i = thread; i < hats; i += threads) {
    hat_words[i] = global_hats[first_hat + i];
    hat_quotient[i] = c.hat_quotient[first_hat + i];
  }
  const std::uint64_t* global_moduli = reinterpret_cast<const std::uint64_t*>(c.target_moduli + first_target);
  for (int i = thread; i < 3 * count; i += threads) moduli[i] = global_moduli[i];
  for (int t = thread; t < count; t += threads) {
    minus_q[t] = c.minus_q_montgomery[first_target + t];
    factors[t] = c.target_factors[first_target + t];
    offsets[t] = c.target_offsets[first_target + t];
  }
  DeviceConversion view = c;
  view.targets = count;
  view.target_moduli = reinterpret_cast<const Modulus<std::uint64_t>*>(moduli);
  view.target_offsets = offsets;
  view.hat_montgomery = hat_words;
  view.hat_plain = hat_words;
  view.minus_q_montgomery = minus_q;
  view.target_factors = factors;
  view.hat_quotient = hat_quotient;
  return view;
}

}  // namespace fhe::cuda
