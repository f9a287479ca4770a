// Lazy Harvey butterflies with Shoup companions, as FHE_HD functions shared
// by every CUDA kernel (and the host emulation test). They do the same
// arithmetic as fhe/ntt/cpu/butterflies.h: forward values stay in [0, 4q),
// inverse values in [0, 2q), q < 2^62 (64-bit words) or 2^30 (32-bit words).
// Outputs of a whole transform are fully reduced, so every factorization
// gives the oracle's words.
#pragma once

#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::ntt::gpu {

// Cooley-Tukey: (x, y) -> (x + w y, x - w y), inputs and outputs in [0, 4q).
template <typename Word>
FHE_HD void forward_butterfly(Word& x, Word& y, TwiddlePair<Word> w, Word q) {
  const Word two_q = 2 * q;
  const Word u = x >= two_q ? x - two_q : x;
  const Word v = mul_shoup_lazy<Word>(y, w.value, w.companion, q);
  x = u + v;
  y = u - v + two_q;
}

// Gentleman-Sande: (x, y) -> (x + y, w (x - y)), inputs and outputs in [0, 2q).
template <typename Word>
FHE_HD void inverse_butterfly(Word& x, Word& y, TwiddlePair<Word> w, Word q) {
  const Word two_q = 2 * q;
  const Word sum = x + y;
  const Word difference = x - y + two_q;
  x = sum >= two_q ? sum - two_q : sum;
  y = mul_shoup_lazy<Word>(difference, w.value, w.companion, q);
}

// The inverse's last butterfly (stage 0) with the N^-1 scaling folded in:
// (x, y) -> (N^-1 (x + y), N^-1 w (x - y)), fully reduced into [0, q).
template <typename Word>
FHE_HD void inverse_butterfly_scaled(Word& x, Word& y, const RowConstants<Word>& c) {
  const Word sum = x + y;                  // < 4q
  const Word difference = x - y + 2 * c.q;  // < 4q
  x = mul_shoup<Word>(sum, c.n_inverse, c.n_inverse_shoup, c.q);
  y = mul_shoup<Word>(difference, c.scaled_stage0, c.scaled_stage0_shoup, c.q);
}

// [0, 4q) -> [0, q): the forward transform's final reduction.
template <typename Word>
FHE_HD Word reduce_from_4q(Word x, Word q) {
  const Word two_q = 2 * q;
  x = x >= two_q ? x - two_q : x;
  return x >= q ? x - q : x;
}

}  // namespace fhe::ntt::gpu
