// Device pieces of the key-switching kernels, shared by eval_kernels.cu and
// the fused ModUp + key product (region_key_product.cu): the key inner
// product, one rotation term, and where an extended output's rows go. The
// digits' words come through a loader, global memory (the hoisted
// decomposition) or shared memory (the fused kernel's tiles), so both paths
// compute the same words by the same code. FHE_HD: the host emulation test
// of the fused kernel runs them too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "evaluator/cuda/eval_kernels.h"

namespace fhe::cuda::terms {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

FHE_HD u64 reduce128(u128 x, const DeviceModulus& m) {
  return reduce_wide<u64>(static_cast<u64>(x >> 64), static_cast<u64>(x), m);
}

// A read-only global word: through the non-coherent path on the device.
FHE_HD u64 load_read_only(const u64* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// One half (b or a) of a term's key at one extended position, digit by
// digit: digit d's word at words[d * digit_stride]. Staged: the fused
// kernel's copy in shared memory; otherwise the key in global memory, read
// through the non-coherent path (__ldg), like the digits.
template <bool Staged>
struct KeyHalf {
  const u64* words;
  std::size_t digit_stride;
  FHE_HD u64 operator[](std::size_t offset) const { return Staged ? words[offset] : load_read_only(words + offset); }
};

template <bool StagedB, bool StagedA>
struct KeyHalves {
  KeyHalf<StagedB> b;
  KeyHalf<StagedA> a;
};

// Both halves of a term's key in global memory at key word key_word: digit
// d's half h is component 2 (first_digit + d) + h, key_rows x n words each.
FHE_HD KeyHalves<false, false> global_key(const u64* key, int first_digit, std::size_t key_rows, std::size_t n,
                                          std::size_t key_word) {
  const std::size_t half_stride = key_rows * n, digit_stride = 2 * half_stride;
  const u64* b = key + static_cast<std::size_t>(first_digit) * digit_stride + key_word;
  return {{b, digit_stride}, {b + half_stride, digit_stride}};
}

// Both key halves at one extended position in one pass over every digit:
// sum_d digit_word(d) * key_b/key_a[d], exact in 128 bits, one reduction
// each. A thread issues the loads of DigitsPerRound digits together, then
// those of the digits left over. The rotation kernels take 5: the default
// preset's 10 digits at level 0 in two memory round trips instead of the
// four of the compiler's 4-way unrolled loop (4 + 4 + 1 + 1); rotate_many[4]
// -2.2 %, sum16_lazy_moddown -3.4 %, BSGS -3.5 %. Relinearization's kernel
// keeps 1 (the plain loop): with 5 it went from 40 to 56 registers and
// multiply_relinearize took 2 % longer (docs/performance.md, session 6).
// The rounds are whole and unguarded: with a guard on each load (a last
// round partly past the digits) the compiler computed every load's address
// from scratch, a 64-bit multiply each.
template <int DigitsPerRound, bool StagedB, bool StagedA, typename DigitWord>
FHE_HD void key_inner_product(DigitWord digit_word, int digits, KeyHalf<StagedB> key_b, KeyHalf<StagedA> key_a,
                              const DeviceModulus& m, u64& out_b, u64& out_a) {
  std::size_t at_b = 0, at_a = 0;  // digit d's words
  u128 sum_b = 0, sum_a = 0;
  int d = 0;
  for (; d + DigitsPerRound <= digits;
       d += DigitsPerRound, at_b += DigitsPerRound * key_b.digit_stride, at_a += DigitsPerRound * key_a.digit_stride) {
    u64 x[DigitsPerRound], round_b[DigitsPerRound], round_a[DigitsPerRound];
#pragma unroll
    for (int j = 0; j < DigitsPerRound; ++j) {
      x[j] = digit_word(d + j);
      round_b[j] = key_b[at_b + j * key_b.digit_stride];
      round_a[j] = key_a[at_a + j * key_a.digit_stride];
    }
#pragma unroll
    for (int j = 0; j < DigitsPerRound; ++j) {
      sum_b += static_cast<u128>(x[j]) * round_b[j];
      sum_a += static_cast<u128>(x[j]) * round_a[j];
    }
  }
  for (; d < digits; ++d, at_b += key_b.digit_stride, at_a += key_a.digit_stride) {  // the digits left over
    const u64 x = digit_word(d);
    sum_b += static_cast<u128>(x) * key_b[at_b];
    sum_a += static_cast<u128>(x) * key_a[at_a];
  }
  out_b = reduce128(sum_b, m);
  out_a = reduce128(sum_a, m);
}

// Digit d's word at (extended row r, position source_k) of the hoisted
// decomposition (digits x rows x n in global memory), read-only for the
// kernel: through the non-coherent path, as when it was a __restrict__
// kernel parameter (a plain load made rotate_many[4] 1.2 % slower).
struct ExtendedDigits {
  const u64* extended;
  std::size_t rows, n, r;
  FHE_HD u64 operator()(int d, std::size_t source_k) const {
    return load_read_only(extended + (static_cast<std::size_t>(d) * rows + r) * n + source_k);
  }
};

// Where an extended output's row r goes: with a P block, Q rows stay in the
// parts and P rows go to the block (b's, then a's) so that the ModDown
// transforms them in one batch.
struct SplitRows {
  u64* b;
  u64* a;
  u64* p_block;  // null: every row in the parts
  std::size_t q_rows, rows, n;
  FHE_HD u64* row_b(std::size_t r) const {
    return p_block && r >= q_rows ? p_block + (r - q_rows) * n : b + r * n;
  }
  FHE_HD u64* row_a(std::size_t r) const {  // after b's rows - q_rows P rows
    return p_block && r >= q_rows ? p_block + ((rows - q_rows) + (r - q_rows)) * n : a + r * n;
  }
};

// What a thread of row r needs for every term.
struct TermRow {
  std::size_t n, id;
  DeviceModulus m;
  bool q_row;  // the P rows of P x (Q-row term) are zero
  u64 p, p_shoup;
};

FHE_HD TermRow term_row(const ExtendedSumArgs& s, std::size_t r) {
  TermRow row;
  row.n = std::size_t{1} << s.log_n;
  row.id = s.first_row + r;
  row.m = s.moduli[row.id];
  row.q_row = r < s.q_rows;
  row.p = row.q_row ? s.p_mod_q[row.id] : 0;
  row.p_shoup = row.q_row ? s.p_mod_q_shoup[row.id] : 0;
  return row;
}

// Term `term` at (row r, coefficient k), times its plaintext when it has
// one. With a key: the inner product of the digits at the key's permuted
// position plus P c0 there on the Q rows (a rotation), or, when not
// Galois, at the position itself and nothing else (relinearization: c0 and
// c1 join at the ModDown). Without one (step 0): (P c0, P c1) on the Q rows.
// digit_word(d, source_k) reads the digits. Galois is a template argument
// so the rotation kernels carry no test of it (with a run-time test of the
// table and c0, rotate_many[4] took 1.4 % longer). key_at(k) gives the
// key's two halves at position k (KeyHalf): by default the term's key in
// global memory; the fused kernel passes its staged copy.
template <int DigitsPerRound, bool Galois, typename DigitWord, typename KeyAt>
FHE_HD void rotation_term(const RotationTerm& term, const ExtendedSumArgs& s, const TermRow& row, std::size_t r,
                          std::size_t k, DigitWord digit_word, KeyAt key_at, u64& b, u64& a) {
  const std::size_t n = row.n, i = r * n + k;
  const u64 q = row.m.value;
  b = 0;
  a = 0;
  if (term.key) {
    const std::size_t source_k = Galois ? term.table[k] : k;
    const auto key = key_at(k);
    key_inner_product<DigitsPerRound>([&](int d) { return digit_word(d, source_k); }, s.digits, key.b, key.a, row.m,
                                      b, a);
    if (Galois && row.q_row) b = add_mod(b, mul_shoup(s.c0[r * n + source_k], row.p, row.p_shoup, q), q);
  } else if (row.q_row) {
    b = mul_shoup(s.c0[i], row.p, row.p_shoup, q);
    a = mul_shoup(s.c1[i], row.p, row.p_shoup, q);
  }
  if (term.plain) {
    b = mul_mod(b, term.plain[i], row.m);
    a = mul_mod(a, term.plain[i], row.m);
  }
}

template <int DigitsPerRound, bool Galois, typename DigitWord>
FHE_HD void rotation_term(const RotationTerm& term, const ExtendedSumArgs& s, const TermRow& row, std::size_t r,
                          std::size_t k, DigitWord digit_word, u64& b, u64& a) {
  const auto key_at = [&](std::size_t at) {
    return global_key(term.key, s.first_digit, s.key_rows, row.n, row.id * row.n + at);
  };
  rotation_term<DigitsPerRound, Galois>(term, s, row, r, k, digit_word, key_at, b, a);
}

}  // namespace fhe::cuda::terms
