// The tensor product's words at one position of a row of prime q:
// d0 = a0 b0, d1 = a0 b1 + a1 b0, d2 = a1 b1 mod q, from canonical words
// (below q). FHE_HD, so the host test (tests/evaluator/gpu/
// tensor_words_test.cpp) runs both forms against each other.
// - tensor_words_integer: four Barrett products (mul_mod), the CPU's
//   arithmetic; every row.
// - tensor_words_fp64: rows whose prime is below 2^42 (fp64_modulus: every
//   scale prime of the scale-30 and scale-40 presets, 34 of the default
//   preset's 35 Q rows), with the double-precision products of the FP64
//   butterflies (fp64_arith.cuh). Each b is a "twiddle" (b, fl(b fl(1/q))),
//   formed once and used twice; each product x w - e q is exact and below
//   0.51 q in magnitude for x, w < q < 2^42 (the companion's error times x
//   is below 2^-9, against the 2^-3 that the butterflies' 2^49 allows), so
//   d0 and d2 need only canonical(), and d1's two products (below 1.02 q
//   together) one reduce() first. About 40 FP64 operations a position
//   where the four Barrett products took about 250 integer instructions:
//   the kernel's warp instructions -53 % (session 66, H100: its time -13 %
//   at the base clock, -3 % at the boost clock, where its bytes bound it).
// Both give the same words: each is the residue in [0, q).
#pragma once

#include <cstdint>

#include "fhe/arith/modarith.h"
#include "fhe/ntt/cuda/fp64_arith.cuh"

namespace fhe::cuda {

struct TensorWords {
  std::uint64_t d0, d1, d2;
};

FHE_HD TensorWords tensor_words_integer(std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1,
                                        const Modulus<std::uint64_t>& m) {
  return {mul_mod(a0, b0, m), add_mod(mul_mod(a0, b1, m), mul_mod(a1, b0, m), m.value), mul_mod(a1, b1, m)};
}

// q < 2^42 (ntt::gpu::fp64_modulus) and q_inverse = fl(1 / q).
FHE_HD TensorWords tensor_words_fp64(std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1,
                                     std::uint64_t q, double q_inverse) {
  namespace ntt = fhe::ntt::gpu;
  const ntt::Fp64Arith ar(q, q_inverse);
  const double x0 = ntt::fp64_of_word(a0), x1 = ntt::fp64_of_word(a1);
  const auto w0 = ar.pair(ntt::fp64_of_word(b0)), w1 = ar.pair(ntt::fp64_of_word(b1));
  const double cross = ntt::fp64_add(ar.product(x0, w1), ar.product(x1, w0));
  return {ar.canonical(ar.product(x0, w0)), ar.canonical(ar.reduce(cross)), ar.canonical(ar.product(x1, w1))};
}

}  // namespace fhe::cuda
