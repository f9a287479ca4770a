// One thread's word of the plaintext-weighted sums (products_sums_kernel):
// out_j[i] (+)= sum_t term_t[i] * plain_(j,t)[i] for both parts, exact in
// 128 bits, one reduction per output. FHE_HD so the host tests run the
// same body. (The narrow rows' products in the three 64-bit sums of
// SplitProductSums need 70-72 registers here instead of 64, so 3 blocks an
// SM instead of 4: the inner sums took 1.13 ms instead of 0.93 under ncu,
// the lazy BSGS +3.3 %; docs/performance.md, session 37.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/key_terms.cuh"

namespace fhe::cuda::terms {

// With words and plaintexts < q < 2^61 each product is < 2^122, so the
// carried-in sum (< q) plus kMaxProductTerms products stays below 2^128.
static_assert(kMaxProductTerms <= 32 && WordTraits<u64>::max_modulus_bits <= 61,
              "32 products of words < 2^61 plus one word must fit in 128 bits");

// Word i (row r's word k; part 1 at i + part) of every output of `s`.
template <int Outputs>
FHE_HD void plain_product_sums_at(const ProductSums& s, bool accumulate, std::size_t i, std::size_t part,
                                  const DeviceModulus& m) {
  u128 sum0[Outputs], sum1[Outputs];
#pragma unroll
  for (int j = 0; j < Outputs; ++j) {
    sum0[j] = accumulate ? s.outs[j][i] : 0;
    sum1[j] = accumulate ? s.outs[j][part + i] : 0;
  }
  for (int t = 0; t < s.term_count; ++t) {
    const u64 c0 = s.terms[t][i], c1 = s.terms[t][part + i];
    u64 plain[Outputs];
#pragma unroll
    for (int j = 0; j < Outputs; ++j) plain[j] = s.plains[j][t][i >> s.plain_block_logs[j][t]];
#pragma unroll
    for (int j = 0; j < Outputs; ++j) {
      sum0[j] += static_cast<u128>(c0) * plain[j];
      sum1[j] += static_cast<u128>(c1) * plain[j];
    }
  }
#pragma unroll
  for (int j = 0; j < Outputs; ++j) {
    s.outs[j][i] = reduce128(sum0[j], m);
    s.outs[j][part + i] = reduce128(sum1[j], m);
  }
}

}  // namespace fhe::cuda::terms
