// WideSum (30-bit limb sums of products) against plain 128-bit arithmetic:
// random words and the largest ones at the full term count, where a wrong
// limb split or a carry lost from any accumulator changes the sum.
#include <gtest/gtest.h>

#include <random>

#include "fhe/arith/wide_sum.h"

namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

constexpr u64 kLargest = (u64{1} << fhe::kWideSumWordBits) - 1;

u128 wide_value(const fhe::WideSum& sum) {
  u64 hi = 0, lo = 0;
  sum.value(hi, lo);
  return (static_cast<u128>(hi) << 64) | lo;
}

TEST(WideSum, SplitsIntoThirtyBitLimbs) {
  const fhe::Limbs30 limbs = fhe::split_limbs30(kLargest - 5);
  EXPECT_EQ(limbs.low, (1u << 30) - 6);
  EXPECT_EQ(limbs.high, (1u << 30) - 1);
  const fhe::Limbs30 small = fhe::split_limbs30((u64{3} << 30) + 7);
  EXPECT_EQ(small.low, 7u);
  EXPECT_EQ(small.high, 3u);
}

TEST(WideSum, MatchesExactSumsOfRandomProducts) {
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<u64> word(0, kLargest);
  std::uniform_int_distribution<std::uint32_t> count(0, 15);
  for (int trial = 0; trial < 20000; ++trial) {
    const int terms = 1 + trial % fhe::WideSum::kMaxTerms;
    fhe::WideSum sum;
    u128 expected = 0;
    for (int t = 0; t < terms; ++t) {
      const u64 a = word(rng), b = word(rng);
      sum.add(fhe::split_limbs30(a), fhe::split_limbs30(b));
      expected += static_cast<u128>(a) * b;
    }
    const std::uint32_t small = count(rng);
    const u64 c = word(rng);
    sum.add_small(small, fhe::split_limbs30(c));
    expected += static_cast<u128>(small) * c;
    ASSERT_TRUE(wide_value(sum) == expected) << "trial " << trial;
  }
}

TEST(WideSum, HoldsTheLargestWordsAtTheTermLimit) {
  fhe::WideSum sum;
  u128 expected = 0;
  for (int t = 0; t < fhe::WideSum::kMaxTerms; ++t) {
    sum.add(fhe::split_limbs30(kLargest), fhe::split_limbs30(kLargest));
    expected += static_cast<u128>(kLargest) * kLargest;
  }
  sum.add_small(15, fhe::split_limbs30(kLargest));
  expected += static_cast<u128>(15) * kLargest;
  EXPECT_TRUE(wide_value(sum) == expected);
  EXPECT_GT(sum.high, u64{1} << 63);  // the bound is nearly reached, not loose
  EXPECT_GT(sum.low_high, u64{1} << 63);
}

}  // namespace
