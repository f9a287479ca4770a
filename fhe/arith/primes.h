// Primality and NTT-friendly prime generation, deterministic everywhere.
#pragma once

#include <cstdint>
#include <vector>

namespace fhe {

// Deterministic Miller-Rabin for every 64-bit integer (first 12 prime bases).
bool is_prime(std::uint64_t n);

// Direction of a prime search from a starting point.
enum class PrimeSearch { below, above };

// The next prime p = 1 mod two_n strictly below/above `start` (start itself
// excluded), skipping any value in `exclude`. Throws InvalidArgument when the
// search leaves the [two_n, 2^62) range.
std::uint64_t next_ntt_prime(std::uint64_t start, std::uint64_t two_n, PrimeSearch direction,
                             const std::vector<std::uint64_t>& exclude);

// `count` distinct primes = 1 mod two_n, the largest below 2^bits.
std::vector<std::uint64_t> largest_ntt_primes(int bits, int count, std::uint64_t two_n,
                                              const std::vector<std::uint64_t>& exclude);

// `count` distinct primes = 1 mod two_n closest to 2^bits, taken alternately
// above and below so that their product stays near 2^(bits*count) (which
// keeps the CKKS scale stable through rescaling).
std::vector<std::uint64_t> balanced_ntt_primes(int bits, int count, std::uint64_t two_n,
                                               const std::vector<std::uint64_t>& exclude);

// A primitive two_n-th root of unity mod q (q prime, q = 1 mod two_n): the
// smallest one of the form g^((q-1)/two_n) for g = 2, 3, ..., so it is the
// same on every machine.
std::uint64_t primitive_root_of_unity(std::uint64_t two_n, std::uint64_t q);

}  // namespace fhe
