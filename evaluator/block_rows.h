// Plaintext rows that are constant over aligned blocks of words, stored one
// word a block. A slot vector of period d (a power of two dividing N/2) is
// fixed by the rotation by d, so it encodes to a polynomial in X^(N/2d); its
// value at psi^(2 br(k) + 1) then depends only on br(k) mod 2d, that is on
// the top log2(2d) bits of k, and each row of its bit-reversed NTT form is
// constant over the N/2d consecutive k that share them. The lazy matvecs'
// diagonals (period d = the dimension) are such plaintexts: at N = 2^16 and
// d = 128, 256 words a row instead of 65536. Word i of the rows (row-major)
// is block word i >> block_log; the words are the plaintext's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fhe {

// The largest b <= log2(n) such that each row of `words` (rows x n,
// row-major; n a power of two) is constant over aligned blocks of 2^b words.
int constant_block_log(std::span<const std::uint64_t> words, std::size_t n);

// One word a block of 2^block_log words, as bytes (a staging buffer's):
// word i of `out` is words[i << block_log].
void block_words(std::span<const std::uint64_t> words, int block_log, std::span<std::uint8_t> out);

// The block_log of a slot vector of period `period` at ring degree n:
// log2(n / (2 period)) (0 when the period is all n/2 slots). For memory
// plans, before anything is encoded.
int periodic_block_log(std::size_t n, std::size_t period);

}  // namespace fhe
