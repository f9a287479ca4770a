// Deterministic Miller-Rabin and NTT prime generation.
#include "fhe/arith/primes.h"

#include <algorithm>
#include <string>

#include "fhe/arith/modarith.h"
#include "fhe/core/error.h"

namespace fhe {

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  static constexpr std::uint64_t kBases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (std::uint64_t p : kBases) {
    if (n % p == 0) return n == p;
  }
  std::uint64_t d = n - 1;
  int r = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++r;
  }
  // These bases decide primality for all n < 3.3e24, hence every 64-bit n.
  for (std::uint64_t a : kBases) {
    std::uint64_t x = pow_mod<std::uint64_t>(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < r; ++i) {
      x = mul_mod_exact<std::uint64_t>(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

std::uint64_t next_ntt_prime(std::uint64_t start, std::uint64_t two_n, PrimeSearch direction,
                             const std::vector<std::uint64_t>& exclude) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  // First candidate = 1 mod two_n strictly beyond start.
  std::uint64_t candidate = (start / two_n) * two_n + 1;
  if (direction == PrimeSearch::below) {
    if (candidate >= start) candidate = candidate >= two_n ? candidate - two_n : 0;
  } else if (candidate <= start) {
    candidate += two_n;
  }
  while (candidate > two_n && candidate < kLimit) {
    if (is_prime(candidate) &&
        std::find(exclude.begin(), exclude.end(), candidate) == exclude.end()) {
      return candidate;
    }
    candidate = direction == PrimeSearch::below ? candidate - two_n : candidate + two_n;
  }
  throw InvalidArgument("no NTT-friendly prime = 1 mod " + std::to_string(two_n) +
                        " left near " + std::to_string(start));
}

std::vector<std::uint64_t> largest_ntt_primes(int bits, int count, std::uint64_t two_n,
                                              const std::vector<std::uint64_t>& exclude) {
  std::vector<std::uint64_t> taken = exclude;
  std::vector<std::uint64_t> primes;
  std::uint64_t cursor = std::uint64_t{1} << bits;
  for (int i = 0; i < count; ++i) {
    cursor = next_ntt_prime(cursor, two_n, PrimeSearch::below, taken);
    primes.push_back(cursor);
    taken.push_back(cursor);
  }
  return primes;
}

std::vector<std::uint64_t> balanced_ntt_primes(int bits, int count, std::uint64_t two_n,
                                               const std::vector<std::uint64_t>& exclude) {
  std::vector<std::uint64_t> taken = exclude;
  std::vector<std::uint64_t> primes;
  const std::uint64_t target = std::uint64_t{1} << bits;
  std::uint64_t upper = target;  // next search above starts here
  std::uint64_t lower = target;  // next search below starts here
  for (int i = 0; i < count; ++i) {
    bool go_above = (i % 2 == 0);
    std::uint64_t p = next_ntt_prime(go_above ? upper : lower, two_n,
                                     go_above ? PrimeSearch::above : PrimeSearch::below, taken);
    (go_above ? upper : lower) = p;
    primes.push_back(p);
    taken.push_back(p);
  }
  return primes;
}

std::uint64_t primitive_root_of_unity(std::uint64_t two_n, std::uint64_t q) {
  if ((q - 1) % two_n != 0) {
    throw InvalidArgument("modulus " + std::to_string(q) + " is not 1 mod " + std::to_string(two_n));
  }
  const std::uint64_t cofactor = (q - 1) / two_n;
  for (std::uint64_t g = 2; g < q; ++g) {
    std::uint64_t root = pow_mod<std::uint64_t>(g, cofactor, q);
    // Order exactly two_n (a power of two) iff root^(two_n/2) = -1.
    if (pow_mod<std::uint64_t>(root, two_n / 2, q) == q - 1) return root;
  }
  throw InvalidArgument("no primitive root found mod " + std::to_string(q));
}

}  // namespace fhe
