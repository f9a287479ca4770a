// Per-prime twiddle tables shared by every backend on every device.
//
// For prime q with the fixed primitive 2N-th root psi:
//   forward[k] = psi^br(k)      (k in [0, N), br = logN-bit reversal)
//   inverse[k] = psi^-br(k)
// with Shoup companions for the word type in use. Stage s of the forward
// transform uses forward[2^s + group]; the inverse stage with the same
// stride uses inverse[2^s + group]. Compact backends read these rows
// directly; the strict radix and indexed backends derive their own layouts
// from them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fhe/arith/modarith.h"

namespace fhe::ntt {

std::uint32_t bit_reverse(std::uint32_t value, int bits);

template <typename Word>
struct PrimeTwiddles {
  Word q = 0;
  Word psi = 0;
  std::vector<Word> forward, forward_shoup;
  std::vector<Word> inverse, inverse_shoup;
  Word n_inverse = 0, n_inverse_shoup = 0;
};

// Builds the tables of one prime (q = 1 mod 2N, q < 2^62 or 2^30).
template <typename Word>
PrimeTwiddles<Word> make_prime_twiddles(Word q, int log_n);

// Tables for all rows of a plan.
template <typename Word>
std::vector<PrimeTwiddles<Word>> make_twiddles(std::span<const std::uint64_t> moduli, int log_n);

extern template PrimeTwiddles<std::uint64_t> make_prime_twiddles(std::uint64_t, int);
extern template PrimeTwiddles<std::uint32_t> make_prime_twiddles(std::uint32_t, int);
extern template std::vector<PrimeTwiddles<std::uint64_t>> make_twiddles(
    std::span<const std::uint64_t>, int);
extern template std::vector<PrimeTwiddles<std::uint32_t>> make_twiddles(
    std::span<const std::uint64_t>, int);

}  // namespace fhe::ntt
