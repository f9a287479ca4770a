// The double-precision butterflies' arithmetic (fp64_arith.cuh) at the
// edges of its stated bounds, against exact 128-bit integer arithmetic:
// products of |x| < 2^49 with twiddles and constants, the
// centred reduction of |v| < 2^50, stored and output words.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fhe/ntt/cuda/fp64_arith.cuh"

namespace {

using fhe::ntt::gpu::bits_of_fp64;
using fhe::ntt::gpu::Fp64Arith;
using fhe::ntt::gpu::fp64_of_bits;
using i128 = __int128;

constexpr std::int64_t kProductInputLimit = (std::int64_t{1} << 49) - 1;
constexpr std::int64_t kReduceInputLimit = (std::int64_t{1} << 50) - 1;

// Moduli at the top of the range, preset-like, and small (odd: the
// arithmetic does not need a prime).
const std::vector<std::uint64_t> kModuli = {(std::uint64_t{1} << 42) - 1, (std::uint64_t{1} << 41) + 21,
                                            1099511922689ULL, (std::uint64_t{1} << 28) - 57, 12289};

Fp64Arith arith_for(std::uint64_t q) {
  fhe::ntt::gpu::RowConstants<std::uint64_t> c{};
  c.q = q;
  c.fp64 = 1;
  c.fp64_q_inverse = 1.0 / static_cast<double>(q);
  return Fp64Arith(c);
}

i128 residue(i128 a, std::uint64_t q) {
  const i128 r = a % static_cast<i128>(q);
  return r < 0 ? r + q : r;
}

bool is_integer(double d) { return std::floor(d) == d; }

// Signed values spread over [-limit, limit], the extremes included.
std::int64_t signed_value(std::mt19937_64& rng, std::int64_t limit, int i) {
  if (i % 97 == 0) return limit;
  if (i % 97 == 1) return -limit;
  std::uniform_int_distribution<std::int64_t> any(-limit, limit);
  std::uniform_int_distribution<int> shift(0, 40);
  return any(rng) >> (i % 3 == 0 ? shift(rng) : 0);  // small magnitudes too
}

TEST(Fp64Arith, ProductIsExactAndBelowTheStatedBound) {
  std::mt19937_64 rng(7);
  for (std::uint64_t q : kModuli) {
    const Fp64Arith ar = arith_for(q);
    std::uniform_int_distribution<std::uint64_t> below_q(0, q - 1);
    for (int i = 0; i < 40000; ++i) {
      const std::int64_t x = signed_value(rng, kProductInputLimit, i);
      const std::uint64_t w = i % 101 == 0 ? q - 1 : below_q(rng);
      const auto pair = ar.constant(w);  // as the kernels derive a table twiddle's companion
      const double t = ar.product(static_cast<double>(x), pair);
      ASSERT_TRUE(is_integer(t)) << q << " " << x << " " << w;
      ASSERT_LT(std::fabs(t), 0.63 * static_cast<double>(q)) << q << " " << x << " " << w;
      ASSERT_EQ(residue(static_cast<i128>(t), q), residue(static_cast<i128>(x) * w, q)) << q << " " << x << " " << w;
    }
  }
}

TEST(Fp64Arith, ReductionIsCentred) {
  std::mt19937_64 rng(11);
  for (std::uint64_t q : kModuli) {
    const Fp64Arith ar = arith_for(q);
    for (int i = 0; i < 40000; ++i) {
      const std::int64_t v = signed_value(rng, kReduceInputLimit, i);
      const double r = ar.reduce(static_cast<double>(v));
      ASSERT_TRUE(is_integer(r));
      ASSERT_LT(std::fabs(r), 0.51 * static_cast<double>(q)) << q << " " << v;
      ASSERT_EQ(residue(static_cast<i128>(r), q), residue(v, q)) << q << " " << v;
    }
  }
}

TEST(Fp64Arith, StoredAndOutputWords) {
  std::mt19937_64 rng(13);
  for (std::uint64_t q : kModuli) {
    const Fp64Arith ar = arith_for(q);
    const auto three_q = 3 * static_cast<std::int64_t>(q);
    std::uniform_int_distribution<std::int64_t> intermediate(-three_q + 1, kProductInputLimit);
    for (int i = 0; i < 20000; ++i) {
      // An intermediate word (v > -3q) comes back as v + 3q, and reads as that.
      const std::int64_t v = intermediate(rng);
      const std::uint64_t stored = ar.stored(bits_of_fp64(static_cast<double>(v)), false);
      ASSERT_EQ(static_cast<std::int64_t>(stored), v + three_q);
      ASSERT_EQ(fp64_of_bits(ar.loaded(stored)), static_cast<double>(v + three_q));
      // Any |v| < 2^50 leaves the forward transform fully reduced.
      const std::int64_t u = signed_value(rng, kReduceInputLimit, i);
      ASSERT_EQ(static_cast<i128>(ar.output(bits_of_fp64(static_cast<double>(u)))), residue(u, q)) << q << " " << u;
    }
    // A final word passes through as the last butterfly reduced it.
    EXPECT_EQ(ar.stored(q - 1, true), q - 1);
  }
}

TEST(Fp64Arith, InverseSumsAreReducedOnceARound) {
  using fhe::ntt::gpu::inverse_reduces_sums;
  // Rounds of 4 stages (regions, 4-stage passes) reduce at their third;
  // shorter ones at their last, so no round ends more than one stage after it.
  EXPECT_TRUE(inverse_reduces_sums(2, 4) && !inverse_reduces_sums(3, 4) && !inverse_reduces_sums(1, 4));
  EXPECT_TRUE(inverse_reduces_sums(2, 3) && inverse_reduces_sums(1, 2) && inverse_reduces_sums(0, 1));
  EXPECT_FALSE(inverse_reduces_sums(0, 2) || inverse_reduces_sums(0, 3));
}

}  // namespace
