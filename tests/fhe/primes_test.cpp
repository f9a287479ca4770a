// Miller-Rabin against GMP and known hard cases; prime generation properties.
#include <gtest/gtest.h>

#include <random>

#include "fhe/arith/modarith.h"
#include "fhe/arith/primes.h"
#include "fhe/core/error.h"

#if FHELIUM_HAVE_GMP
#include <gmp.h>
#endif

namespace {

using u64 = std::uint64_t;

TEST(Primes, KnownPrimesAndPseudoprimes) {
  for (u64 p : {2ULL, 3ULL, 5ULL, 97ULL, 65537ULL, 2305843009213693951ULL /* 2^61-1 */,
                18446744073709551557ULL /* largest 64-bit prime */}) {
    EXPECT_TRUE(fhe::is_prime(p)) << p;
  }
  // Carmichael numbers and strong pseudoprimes to several small bases.
  // 3825123056546413051 is a strong pseudoprime to bases 2..23.
  for (u64 c : {0ULL, 1ULL, 4ULL, 561ULL, 1105ULL, 2047ULL, 3215031751ULL, 25326001ULL,
                3825123056546413051ULL, (1ULL << 62) + 1}) {
    EXPECT_FALSE(fhe::is_prime(c)) << c;
  }
}

#if FHELIUM_HAVE_GMP
TEST(Primes, AgreesWithGmpOnRandomOddNumbers) {
  std::mt19937_64 rng(21);
  mpz_t z;
  mpz_init(z);
  int primes_seen = 0;
  for (int i = 0; i < 20000; ++i) {
    // Mix widths so that small and 64-bit values are both covered.
    u64 n = (rng() >> (rng() % 60)) | 1;
    mpz_set_ui(z, n);
    bool expected = mpz_probab_prime_p(z, 40) != 0;
    ASSERT_EQ(fhe::is_prime(n), expected) << n;
    primes_seen += expected;
  }
  mpz_clear(z);
  EXPECT_GT(primes_seen, 100);  // the sample really contains primes
}
#endif

TEST(Primes, GeneratedPrimesAreNttFriendlyAndDistinct) {
  const u64 two_n = u64{1} << 17;
  auto wide = fhe::largest_ntt_primes(60, 5, two_n, {});
  auto scale = fhe::balanced_ntt_primes(40, 10, two_n, wide);
  std::vector<u64> all = wide;
  all.insert(all.end(), scale.begin(), scale.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_TRUE(fhe::is_prime(all[i]));
    EXPECT_EQ(all[i] % two_n, 1u);
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(all[i], all[j]);
  }
  for (u64 p : wide) EXPECT_EQ(64 - __builtin_clzll(p), 60);
  // Balanced primes alternate around 2^40.
  EXPECT_GT(scale[0], u64{1} << 40);
  EXPECT_LT(scale[1], u64{1} << 40);
  // Deterministic: the same call gives the same primes.
  EXPECT_EQ(fhe::largest_ntt_primes(60, 5, two_n, {}), wide);
}

TEST(Primes, PrimitiveRootHasExactOrder) {
  for (int log_n : {10, 14, 16, 17}) {
    const u64 two_n = u64{2} << log_n;
    for (u64 q : fhe::largest_ntt_primes(60, 2, two_n, {})) {
      u64 psi = fhe::primitive_root_of_unity(two_n, q);
      EXPECT_EQ(fhe::pow_mod<u64>(psi, two_n, q), 1u);
      EXPECT_EQ(fhe::pow_mod<u64>(psi, two_n / 2, q), q - 1);
    }
  }
  EXPECT_THROW(fhe::primitive_root_of_unity(1 << 11, 97), fhe::InvalidArgument);
}

}  // namespace
