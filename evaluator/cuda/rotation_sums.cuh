// One thread's word of the rotation sums (rotation_sums_kernel): every
// term of the list at (row r, position k), each multiplied into every sum
// as it is formed. FHE_HD so the host emulation test runs the same body.
#pragma once

#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/key_terms.cuh"

namespace fhe::cuda::terms {

// Each term word and plaintext word is below q < 2^61, so a product is below
// 2^122 and the carried-in word plus kMaxRotationSumTerms products stays
// below 2^128.
static_assert(kMaxRotationSumTerms <= 32 && WordTraits<u64>::max_modulus_bits <= 61,
              "32 products of words < 2^61 plus one word must fit in 128 bits");

// The terms as rotation_outputs_kernel and rotation_terms_kernel form them
// (predicated rounds of 5 narrow digits, 2 wide, the narrow rows' split
// sums), so every kernel of the rotations computes one word one way.
template <int Sums>
FHE_HD void rotation_sums_at(const RotationSums& list, const ExtendedSumArgs& s, std::size_t r, std::size_t k) {
  const TermRow row = term_row(s, r);
  const std::size_t i = r * row.n + k;
  u128 sum_b[Sums], sum_a[Sums];
#pragma unroll
  for (int j = 0; j < Sums; ++j) {
    sum_b[j] = list.accumulate[j] ? list.sums_b[j][i] : 0;
    sum_a[j] = list.accumulate[j] ? list.sums_a[j][i] : 0;
  }
  for (int t = 0; t < list.term_count; ++t) {
    u64 b, a;
    rotation_term<5, true, true, 2, NarrowSums::split>(list.terms[t], s, row, r, k,
                                                       ExtendedDigits{s.extended, s.rows, row.n, r}, b, a);
#pragma unroll
    for (int j = 0; j < Sums; ++j) {
      const std::uint64_t* plain = list.plains[j][t];
      const u64 p = plain ? plain[i >> list.plain_block_logs[j][t]] : 1;
      sum_b[j] += static_cast<u128>(b) * p;
      sum_a[j] += static_cast<u128>(a) * p;
    }
  }
#pragma unroll
  for (int j = 0; j < Sums; ++j) {
    list.sums_b[j][i] = reduce128(sum_b[j], row.m);
    list.sums_a[j][i] = reduce128(sum_a[j], row.m);
  }
}

}  // namespace fhe::cuda::terms
