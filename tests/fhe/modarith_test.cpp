// Word arithmetic checked exactly against GMP (or 128-bit integers when GMP
// is absent) on random operands for moduli of every width the presets use.
#include <gtest/gtest.h>

#include <random>

#include "fhe/arith/modarith.h"
#include "fhe/arith/primes.h"

#if FHELIUM_HAVE_GMP
#include <gmp.h>
#endif

namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;
using u128 = unsigned __int128;

// Exact (a * b) mod q through GMP when available.
u64 exact_mul_mod(u64 a, u64 b, u64 q) {
#if FHELIUM_HAVE_GMP
  mpz_t x, y, m;
  mpz_init_set_ui(x, a);
  mpz_init_set_ui(y, b);
  mpz_init_set_ui(m, q);
  mpz_mul(x, x, y);
  mpz_mod(x, x, m);
  u64 r = mpz_get_ui(x);
  mpz_clears(x, y, m, nullptr);
  return r;
#else
  return static_cast<u64>(static_cast<unsigned __int128>(a) * b % q);
#endif
}

u64 exact_pow_mod(u64 a, u64 e, u64 q) {
#if FHELIUM_HAVE_GMP
  mpz_t x, m;
  mpz_init_set_ui(x, a);
  mpz_init_set_ui(m, q);
  mpz_powm_ui(x, x, e, m);
  u64 r = mpz_get_ui(x);
  mpz_clears(x, m, nullptr);
  return r;
#else
  u64 r = 1;
  for (a %= q; e; e >>= 1, a = exact_mul_mod(a, a, q)) {
    if (e & 1) r = exact_mul_mod(r, a, q);
  }
  return r;
#endif
}

// Primes of the widths the presets use, plus the extremes of each word.
std::vector<u64> test_moduli64() {
  std::vector<u64> moduli = fhe::largest_ntt_primes(62, 2, 1 << 17, {});
  for (int bits : {60, 50, 40, 30, 20}) {
    auto p = fhe::largest_ntt_primes(bits, 1, 1 << 15, {});
    moduli.push_back(p[0]);
  }
  return moduli;
}

std::vector<u32> test_moduli32() {
  std::vector<u32> moduli;
  for (int bits : {30, 28, 25, 23}) {
    moduli.push_back(static_cast<u32>(fhe::largest_ntt_primes(bits, 1, 1 << 12, {})[0]));
  }
  return moduli;
}

TEST(ModArith, BarrettMulMatchesExact64) {
  std::mt19937_64 rng(11);
  for (u64 q : test_moduli64()) {
    fhe::Modulus<u64> m(q);
    std::uniform_int_distribution<u64> word(0, q - 1);
    for (int i = 0; i < 20000; ++i) {
      u64 a = word(rng), b = word(rng);
      ASSERT_EQ(fhe::mul_mod<u64>(a, b, m), exact_mul_mod(a, b, q)) << a << " * " << b << " mod " << q;
    }
    EXPECT_EQ(fhe::mul_mod<u64>(q - 1, q - 1, m), 1u);
  }
}

TEST(ModArith, BarrettMulMatchesExact32) {
  std::mt19937 rng(12);
  for (u32 q : test_moduli32()) {
    fhe::Modulus<u32> m(q);
    std::uniform_int_distribution<u32> word(0, q - 1);
    for (int i = 0; i < 20000; ++i) {
      u32 a = word(rng), b = word(rng);
      ASSERT_EQ(fhe::mul_mod<u32>(a, b, m), exact_mul_mod(a, b, q));
    }
  }
}

TEST(ModArith, ShoupLazyAndFull64) {
  std::mt19937_64 rng(13);
  for (u64 q : test_moduli64()) {
    std::uniform_int_distribution<u64> word(0, q - 1);
    std::uniform_int_distribution<u64> lazy_input(0, 4 * q - 1);  // Harvey butterfly range
    for (int i = 0; i < 20000; ++i) {
      u64 w = word(rng), x = lazy_input(rng);
      u64 w_shoup = fhe::shoup_companion<u64>(w, q);
      u64 lazy = fhe::mul_shoup_lazy<u64>(x, w, w_shoup, q);
      ASSERT_LT(lazy, 2 * q);
      ASSERT_EQ(lazy % q, exact_mul_mod(x % q, w, q));
      ASSERT_EQ(fhe::mul_shoup<u64>(x, w, w_shoup, q), exact_mul_mod(x % q, w, q));
    }
  }
}

// The CUDA butterflies' product: any 64-bit input, a quotient at most 2 short,
// so the result is mul_shoup_lazy's plus 0, q or 2q.
TEST(ModArith, ShoupLazierStaysWithinTwoQuotients) {
  std::mt19937_64 rng(15);
  for (u64 q : test_moduli64()) {
    std::uniform_int_distribution<u64> word(0, q - 1), any(0, ~u64{0});
    for (int i = 0; i < 20000; ++i) {
      const u64 w = i == 0 ? q - 1 : word(rng), x = i < 2 ? ~u64{0} : any(rng);
      const u64 w_shoup = fhe::shoup_companion<u64>(w, q);
      const u64 lazier = fhe::mul_shoup_lazier(x, w, w_shoup, q);
      const u64 lazy = fhe::mul_shoup_lazy<u64>(x, w, w_shoup, q);
      ASSERT_LT(lazier, 4 * q) << x << " * " << w << " mod " << q;
      ASSERT_TRUE(lazier == lazy || lazier == lazy + q || lazier == lazy + 2 * q) << x << " * " << w;
      ASSERT_EQ(lazier % q, exact_mul_mod(x % q, w, q));
    }
  }
}

TEST(ModArith, ShoupLazyAndFull32) {
  std::mt19937 rng(14);
  for (u32 q : test_moduli32()) {
    std::uniform_int_distribution<u32> word(0, q - 1);
    std::uniform_int_distribution<u32> lazy_input(0, 4 * q - 1);
    for (int i = 0; i < 20000; ++i) {
      u32 w = word(rng), x = lazy_input(rng);
      u32 w_shoup = fhe::shoup_companion<u32>(w, q);
      u32 lazy = fhe::mul_shoup_lazy<u32>(x, w, w_shoup, q);
      ASSERT_LT(lazy, 2 * q);
      ASSERT_EQ(lazy % q, exact_mul_mod(x % q, w, q));
    }
  }
}

TEST(ModArith, MontgomeryReduction) {
  std::mt19937_64 rng(16);
  for (u64 p : test_moduli64()) {
    const u64 factor = fhe::montgomery_factor(p);
    ASSERT_EQ(p * (0 - factor), 1u) << p;  // -factor is p^-1 mod 2^64
    std::uniform_int_distribution<u64> word(0, p - 1), high(0, 3 * p - 1), any(0, ~u64{0});
    for (int i = 0; i < 20000; ++i) {
      // x < 3 p 2^64: the result is below 4p and congruent to x R^-1.
      const u64 hi = high(rng), lo = any(rng);
      const u128 x = static_cast<u128>(hi) << 64 | lo;
      const u64 r = fhe::montgomery_reduce_lazy(hi, lo, p, factor);
      ASSERT_LT(r, 4 * p);
      ASSERT_EQ((static_cast<u128>(r) << 64) % p, x % p) << "x R^-1 for p " << p;
      ASSERT_EQ(fhe::montgomery_reduce(hi, lo, p, factor), r % p);
    }
    // Constants in Montgomery form: (a R) b R^-1 = a b.
    const u64 a = word(rng), b = word(rng);
    const u128 product = static_cast<u128>(fhe::to_montgomery(a, p)) * b;
    const u64 r = fhe::montgomery_reduce_lazy(static_cast<u64>(product >> 64), static_cast<u64>(product), p, factor);
    EXPECT_EQ(r % p, exact_mul_mod(a, b, p));
    EXPECT_EQ(fhe::montgomery_reduce_lazy(0, 0, p, factor), 0u);
  }
}

TEST(ModArith, AddSubNegPowInv) {
  std::mt19937_64 rng(15);
  for (u64 q : test_moduli64()) {
    std::uniform_int_distribution<u64> word(0, q - 1);
    for (int i = 0; i < 2000; ++i) {
      u64 a = word(rng), b = word(rng), e = rng();
      ASSERT_EQ(fhe::add_mod<u64>(a, b, q), static_cast<u64>((static_cast<unsigned __int128>(a) + b) % q));
      ASSERT_EQ(fhe::sub_mod<u64>(a, b, q), static_cast<u64>((static_cast<unsigned __int128>(a) + q - b) % q));
      ASSERT_EQ(fhe::add_mod<u64>(a, fhe::neg_mod<u64>(a, q), q), 0u);
      ASSERT_EQ(fhe::pow_mod<u64>(a, e, q), exact_pow_mod(a, e, q));
      if (a != 0) ASSERT_EQ(exact_mul_mod(fhe::inv_mod<u64>(a, q), a, q), 1u);
    }
  }
}

}  // namespace
