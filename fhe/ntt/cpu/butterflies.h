// Lazy (Harvey) radix-2 butterflies on the host.
//
// Forward (Cooley-Tukey): inputs and outputs in [0, 4q).
// Inverse (Gentleman-Sande): inputs and outputs in [0, 2q).
// Shared by every CPU backend, so each factorization differs only in the
// order it visits stages, never in the arithmetic.
#pragma once

#include <cstdint>

#include "fhe/arith/modarith.h"

namespace fhe::ntt {

template <typename Word>
inline void forward_butterfly(Word& x, Word& y, Word w, Word w_shoup, Word q) {
  const Word two_q = 2 * q;
  Word u = x >= two_q ? x - two_q : x;
  Word v = mul_shoup_lazy<Word>(y, w, w_shoup, q);
  x = u + v;
  y = u - v + two_q;
}

template <typename Word>
inline void inverse_butterfly(Word& x, Word& y, Word w, Word w_shoup, Word q) {
  const Word two_q = 2 * q;
  Word u = x, v = y;
  Word sum = u + v;
  x = sum >= two_q ? sum - two_q : sum;
  y = mul_shoup_lazy<Word>(u - v + two_q, w, w_shoup, q);
}

// [0, 4q) -> [0, q)
template <typename Word>
inline Word reduce_from_4q(Word x, Word q) {
  const Word two_q = 2 * q;
  x = x >= two_q ? x - two_q : x;
  return x >= q ? x - q : x;
}

}  // namespace fhe::ntt
