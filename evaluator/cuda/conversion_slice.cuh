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
  // The hats and their quotients (centred sums: a word and a double each;
  // split sums: two of each), the targets' Modulus (3 words), [-Q]_(p_t)
  // and its quotient, and the offsets two to a word.
  static constexpr int kWords = 4 * kHats + 5 * TargetsPerSlice + (TargetsPerSlice + 1) / 2;
};

template <int TargetsPerSlice, int MaxSources>
FHE_HD DeviceConversion stage_slice(const DeviceConversion& c, int first_target, std::uint64_t* words, unsigned thread,
                                   unsigned threads) {
  static_assert(sizeof(Modulus<std::uint64_t>) == 3 * sizeof(std::uint64_t));
  constexpr int kHats = StagedSlice<TargetsPerSlice, MaxSources>::kHats;
  const int count = std::min(TargetsPerSlice, c.targets - first_target);
  // One region for the hats of the sums the threads run (centred_estimate,
  // level_constants.cpp): the split sums' are two a hat. A kernel built for
  // fewer sources converts nothing (convert_coefficients) and has no room
  // for their hats: it stages none, but its view still points at shared
  // memory (a view that may point at either would make every load generic;
  // the loads through __restrict__ became global ones on the H200).
  const int per_hat = c.centred_estimate ? 1 : 2;
  const int hats = c.sources > MaxSources ? 0 : per_hat * count * c.sources;
  std::uint64_t* hat_words = words;
  double* hat_quotients = reinterpret_cast<double*>(words + 2 * kHats);
  std::uint64_t* moduli = words + 4 * kHats;
  std::uint64_t* minus_q = moduli + 3 * TargetsPerSlice;
  double* minus_q_quotient = reinterpret_cast<double*>(minus_q + TargetsPerSlice);
  auto* offsets = reinterpret_cast<std::uint32_t*>(minus_q + 2 * TargetsPerSlice);
  const std::size_t first_hat = static_cast<std::size_t>(per_hat) * first_target * c.sources;
  const std::uint64_t* global_hats = c.centred_estimate ? c.hat_plain : c.split_hats;
  const double* global_quotients = c.centred_estimate ? c.hat_quotient : c.split_quotients;
  for (int i = thread; i < hats; i += threads) {
    hat_words[i] = global_hats[first_hat + i];
    hat_quotients[i] = global_quotients[first_hat + i];
  }
  const std::uint64_t* global_moduli = reinterpret_cast<const std::uint64_t*>(c.target_moduli + first_target);
  for (int i = thread; i < 3 * count; i += threads) moduli[i] = global_moduli[i];
  for (int t = thread; t < count; t += threads) {
    if (!c.centred_estimate) {
      minus_q[t] = c.minus_q[first_target + t];
      minus_q_quotient[t] = c.minus_q_quotient[first_target + t];
    }
    offsets[t] = c.target_offsets[first_target + t];
  }
  DeviceConversion view = c;
  view.targets = count;
  view.target_moduli = reinterpret_cast<const Modulus<std::uint64_t>*>(moduli);
  view.target_offsets = offsets;
  view.hat_plain = view.split_hats = hat_words;
  view.hat_quotient = view.split_quotients = hat_quotients;
  view.minus_q = minus_q;
  view.minus_q_quotient = minus_q_quotient;
  return view;
}

}  // namespace fhe::cuda
