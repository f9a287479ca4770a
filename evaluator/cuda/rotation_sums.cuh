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

// The extended row of launch row y: the P rows first, then the Q rows from
// the base prime. A wide row's term (P and the base prime) reads 16 key
// bytes a digit instead of 12 in rounds of two digits instead of five, so
// its blocks take longer; last, the P rows formed this long launch's tail
// (every term a block). First: the kernel -0.9 %, the lazy BSGS -0.5 % on
// an H100; spread through the launch instead, +1.6 % (docs/performance.md,
// session 80).
FHE_HD std::size_t wide_rows_first(std::size_t y, std::size_t rows, std::size_t q_rows) {
  const std::size_t p_rows = rows - q_rows;
  return y < p_rows ? q_rows + y : y - p_rows;
}

// The terms as rotation_outputs_kernel and rotation_terms_kernel form them
// (predicated rounds of 5 narrow digits, 2 wide, the narrow rows' split
// sums), so every kernel of the rotations computes one word one way. The
// thread's 2 x Sums 128-bit sums live in `slots` (slot m at slots[m
// stride]): the kernel's shared memory, one 16-byte slot a thread in a row,
// which leaves the registers to the key inner product.
template <int Sums>
FHE_HD void rotation_sums_at(const RotationSums& list, const ExtendedSumArgs& s, std::size_t r, std::size_t k,
                             u128* slots, std::size_t stride) {
  const TermRow row = term_row(s, r);
  const std::size_t i = r * row.n + k;
  const auto sum = [&](int j, int part) -> u128& { return slots[static_cast<std::size_t>(2 * j + part) * stride]; };
#pragma unroll
  for (int j = 0; j < Sums; ++j) {
    sum(j, 0) = list.accumulate[j] ? list.sums_b[j][i] : 0;
    sum(j, 1) = list.accumulate[j] ? list.sums_a[j][i] : 0;
  }
  for (int t = 0; t < list.term_count; ++t) {
    u64 b, a;
    rotation_term<5, true, true, 2, NarrowSums::split>(list.terms[t], s, row, r, k,
                                                       ExtendedDigits<>{s.extended, s.rows, row.n, r}, b, a);
#pragma unroll
    for (int j = 0; j < Sums; ++j) {
      const std::uint64_t* plain = list.plains[j][t];
      const u64 p = plain ? plain[i >> list.plain_block_logs[j][t]] : 1;
      sum(j, 0) += static_cast<u128>(b) * p;
      sum(j, 1) += static_cast<u128>(a) * p;
    }
  }
#pragma unroll
  for (int j = 0; j < Sums; ++j) {
    list.sums_b[j][i] = reduce128(sum(j, 0), row.m);
    list.sums_a[j][i] = reduce128(sum(j, 1), row.m);
  }
}

}  // namespace fhe::cuda::terms
