// The level-specific key-switch schedule: rows and digits at the default
// preset, and the exactness of its basis conversion and rounded division.
#include <gtest/gtest.h>

#include <random>

#include "evaluator/key_switch_schedule.h"
#include "fhe/arith/primes.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"

namespace fhe {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

const Preset& default_preset() { return preset_by_name(kDefaultPresetName); }

TEST(KeySwitchSchedule, DefaultPresetLevelZero) {
  const KeySwitchSchedule s = make_key_switch_schedule(default_preset(), 0);
  EXPECT_EQ(s.active_q_rows.first, 0u);
  EXPECT_EQ(s.active_q_rows.count, 35u);
  EXPECT_EQ(s.p_rows.first, 35u);
  EXPECT_EQ(s.p_rows.count, 4u);
  EXPECT_EQ(s.extended_rows.first, 0u);
  EXPECT_EQ(s.extended_rows.count, 39u);
  ASSERT_EQ(s.digits.size(), 10u);  // dnum = ceil(34 / 4) + 1
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(s.digits[j].index, j);
    EXPECT_EQ(s.digits[j].q_rows.first, 4u * j);
    EXPECT_EQ(s.digits[j].q_rows.count, 4u);
  }
  EXPECT_EQ(s.digits[8].q_rows.first, 32u);  // the two remaining scale primes
  EXPECT_EQ(s.digits[8].q_rows.count, 2u);
  EXPECT_EQ(s.digits[9].q_rows.first, 34u);  // the base prime alone
  EXPECT_EQ(s.digits[9].q_rows.count, 1u);
  for (const KeySwitchDigit& digit : s.digits) {
    EXPECT_EQ(digit.mod_up.source_count(), digit.q_rows.count);
    EXPECT_EQ(digit.mod_up.target_count(), 39u - digit.q_rows.count);
    for (std::size_t offset : digit.mod_up.target_offsets) {
      EXPECT_FALSE(offset >= digit.q_rows.first && offset < digit.q_rows.first + digit.q_rows.count);
    }
  }
  ASSERT_EQ(s.mod_down.dropped_rows.size(), 1u);
  EXPECT_EQ(s.mod_down.dropped_rows[0].first, 35u);
  EXPECT_EQ(s.mod_down.kept_rows.count, 35u);
}

TEST(KeySwitchSchedule, PartiallyDroppedDigitKeepsItsActiveIds) {
  const KeySwitchSchedule s = make_key_switch_schedule(default_preset(), 6);
  EXPECT_EQ(s.active_q_rows.first, 6u);
  EXPECT_EQ(s.active_q_rows.count, 29u);
  EXPECT_EQ(s.extended_rows.first, 6u);
  EXPECT_EQ(s.extended_rows.count, 33u);
  ASSERT_EQ(s.digits.size(), 9u);  // digit 0 is gone
  EXPECT_EQ(s.digits[0].index, 1);
  EXPECT_EQ(s.digits[0].q_rows.first, 6u);  // digit 1 = ids 4..7, active 6..7
  EXPECT_EQ(s.digits[0].q_rows.count, 2u);
  EXPECT_EQ(s.digits[0].mod_up.target_count(), 31u);
  EXPECT_EQ(s.digits[0].mod_up.target_offsets.front(), 2u);  // rows of the extended buffer

  const KeySwitchSchedule last = make_key_switch_schedule(default_preset(), 34);
  ASSERT_EQ(last.digits.size(), 1u);
  EXPECT_EQ(last.digits[0].index, 9);
  EXPECT_EQ(last.extended_rows.count, 5u);
  EXPECT_THROW(make_key_switch_schedule(default_preset(), 35), InvalidArgument);
}

TEST(KeySwitchSchedule, CacheBuildsEachLevelOnce) {
  const KeySwitchScheduleCache cache(default_preset());
  const KeySwitchSchedule& first = cache.at(3);
  EXPECT_EQ(&first, &cache.at(3));
  EXPECT_EQ(first.level, 3);
  EXPECT_THROW(cache.at(-1), InvalidArgument);
}

TEST(BasisConversion, IsExactUpToASmallMultipleOfTheSourceModulus) {
  // Centered digits: the lift lies in (-Q, Q] for two sources, so it is x or x - Q.
  const Preset& preset = preset_by_name("test-slots2048-scale40-levels6-int64");
  const std::vector<std::uint64_t> sources = {preset.q_primes[0], preset.q_primes[1]};
  const std::vector<std::uint64_t> targets = {preset.q_primes[2], preset.p_primes[0], preset.p_primes[1]};
  const BasisConversion conversion = make_basis_conversion(sources, targets, {0, 1, 2});
  const u128 q_source = static_cast<u128>(sources[0]) * sources[1];
  std::mt19937_64 rng(1);
  const std::size_t n = 64;
  std::vector<u128> x(n);
  std::vector<std::uint64_t> input(2 * n), output(3 * n), scratch(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = ((static_cast<u128>(rng()) << 64) | rng()) % q_source;
    if (k == 0) x[k] = 0;
    if (k == 1) x[k] = q_source - 1;
    for (std::size_t i = 0; i < 2; ++i) input[i * n + k] = static_cast<std::uint64_t>(x[k] % sources[i]);
  }
  conversion.convert(input.data(), output.data(), scratch.data(), n);
  for (std::size_t t = 0; t < targets.size(); ++t) {
    for (std::size_t k = 0; k < n; ++k) {
      bool matched = false;
      const u128 p = targets[t];
      for (u128 lifted : {x[k] % p, (x[k] % p + p - q_source % p) % p}) {  // x and x - Q, mod p_t
        matched |= output[t * n + k] == static_cast<std::uint64_t>(lifted);
      }
      EXPECT_TRUE(matched) << "target " << t << " coefficient " << k;
    }
  }
}

// The sums reduce by Montgomery, valid while sources x max(q) < 3 x 2^64:
// 24 sources of 60 bits fit, 50 do not (their 128-bit sums would).
TEST(BasisConversion, RefusesMoreSourcesThanTheReductionHolds) {
  const std::vector<std::uint64_t> primes = largest_ntt_primes(60, 51, 1 << 12, {});
  const std::vector<std::uint64_t> target = {primes.back()};
  const std::span<const std::uint64_t> all(primes.data(), 50);
  EXPECT_NO_THROW(make_basis_conversion(all.first(24), target, {0}));
  EXPECT_THROW(make_basis_conversion(all, target, {0}), InvalidArgument);
}

// Residues of signed v (|v| < 2^100) over `rows`, NTT form.
std::vector<std::uint64_t> ntt_residues(const ntt::NttPlan& plan, ntt::RowRange rows, const std::vector<i128>& v) {
  const std::size_t n = plan.n();
  std::vector<std::uint64_t> out(rows.count * n);
  for (std::size_t r = 0; r < rows.count; ++r) {
    const auto q = static_cast<i128>(plan.moduli()[rows.first + r]);
    for (std::size_t k = 0; k < n; ++k) out[r * n + k] = static_cast<std::uint64_t>(((v[k] % q) + q) % q);
  }
  plan.forward(out.data(), rows);
  return out;
}

struct ScaleDownCase {
  const char* preset;
  std::vector<ntt::RowRange> dropped;
  ntt::RowRange kept;
  i128 max_error;  // round(v / D) - alpha with |alpha| <= |dropped| / 2 (0 for one prime)
};

class RnsScaleDownCases : public ::testing::TestWithParam<ScaleDownCase> {};

TEST_P(RnsScaleDownCases, RoundsToNearestWithinTheConversionError) {
  const ScaleDownCase& c = GetParam();
  const Preset& preset = preset_by_name(c.preset);
  const auto plan = ntt::make_plan("radix2_indexed", {}, preset.log_n, preset.qp_primes(), preset.word);
  const std::size_t n = plan->n();
  std::mt19937_64 rng(2);
  std::vector<i128> v(n);
  for (std::size_t k = 0; k < n; ++k) {
    v[k] = static_cast<i128>((static_cast<u128>(rng() >> 28) << 64) | rng());  // |v| < 2^100
    if (k % 2) v[k] = -v[k];
  }
  const RnsScaleDown scale_down = make_rns_scale_down(preset, c.dropped, c.kept);
  const auto input = ntt_residues(*plan, {0, preset.qp_primes().size()}, v);
  // D, the dropped primes' product, held at 2^102 once it passes it: every
  // |v| < 2^100 is then below D / 2 and rounds to 0 either way (three 60-bit
  // primes overflowed the 128-bit product, found by UBSan).
  const i128 kBeyondValues = i128{1} << 102;
  i128 divisor = 1;
  std::vector<std::uint64_t> dropped;  // the dropped rows back to back, in the ranges' order
  for (const ntt::RowRange& r : c.dropped) {
    for (std::size_t id = r.first; id < r.first + r.count; ++id) {
      const auto q = static_cast<i128>(plan->moduli()[id]);
      divisor = divisor > kBeyondValues / q ? kBeyondValues : divisor * q;
    }
    dropped.insert(dropped.end(), input.begin() + r.first * n, input.begin() + (r.first + r.count) * n);
  }
  std::vector<std::uint64_t> out(c.kept.count * n), scratch;
  scale_down.apply(*plan, input.data() + c.kept.first * n, dropped.data(), out.data(), scratch);
  plan->inverse(out.data(), c.kept);
  i128 worst = 0;
  for (std::size_t r = 0; r < c.kept.count; ++r) {
    const auto q = static_cast<i128>(plan->moduli()[c.kept.first + r]);
    for (std::size_t k = 0; k < n; ++k) {
      // Nearest integer to v / D (D is odd, so there are no ties).
      const i128 quotient = v[k] >= 0 ? (v[k] + divisor / 2) / divisor : -((-v[k] + divisor / 2) / divisor);
      const i128 diff = ((static_cast<i128>(out[r * n + k]) - quotient) % q + q) % q;
      const i128 centered = diff > q / 2 ? diff - q : diff;
      worst = std::max(worst, centered < 0 ? -centered : centered);
    }
  }
  EXPECT_LE(worst, c.max_error);
}

INSTANTIATE_TEST_SUITE_P(
    RescaleAndModDown, RnsScaleDownCases,
    ::testing::Values(
        ScaleDownCase{"test-slots512-scale40-levels3-int64", {{1, 1}}, {2, 2}, 0},   // rescale at level 1
        ScaleDownCase{"test-slots512-scale40-levels3-int64", {{4, 1}}, {1, 3}, 0},   // ModDown, |P| = 1
        ScaleDownCase{"test-slots2048-scale40-levels6-int64", {{7, 2}}, {2, 5}, 1},  // ModDown, |P| = 2
        ScaleDownCase{"test-slots2048-scale40-levels6-int64", {{0, 1}}, {1, 6}, 0},
        // int32 words: D below the values' 2^100, so the quotients are large
        ScaleDownCase{"test-slots2048-scale25-levels4-int32", {{5, 2}}, {1, 4}, 1},  // ModDown, |P| = 2
        // ModDown and rescale in one (make_mod_down_rescale's rows): P, then row `level`
        ScaleDownCase{"test-slots2048-scale25-levels4-int32", {{5, 2}, {1, 1}}, {2, 3}, 1},
        ScaleDownCase{"test-slots512-scale40-levels3-int64", {{4, 1}, {1, 1}}, {2, 2}, 1},
        ScaleDownCase{"test-slots2048-scale40-levels6-int64", {{7, 2}, {0, 1}}, {1, 6}, 1}));

TEST(RnsScaleDown, NamedSchedulesDropTheirRows) {
  const Preset& preset = preset_by_name("test-slots2048-scale40-levels6-int64");
  const RnsScaleDown rescale = make_rescale(preset, 2);
  ASSERT_EQ(rescale.dropped_rows.size(), 1u);
  EXPECT_EQ(rescale.dropped_rows[0].first, 2u);
  EXPECT_EQ(rescale.kept_rows.first, 3u);
  EXPECT_EQ(rescale.kept_rows.count, 4u);
  const RnsScaleDown fused = make_mod_down_rescale(preset, 2);
  ASSERT_EQ(fused.dropped_rows.size(), 2u);
  EXPECT_EQ(fused.dropped_rows[0].first, 7u);  // the P rows first
  EXPECT_EQ(fused.dropped_rows[0].count, 2u);
  EXPECT_EQ(fused.dropped_rows[1].first, 2u);
  EXPECT_EQ(fused.dropped_count(), 3u);
  EXPECT_EQ(fused.kept_rows.first, 3u);
  EXPECT_EQ(fused.kept_rows.count, 4u);
  // Nothing below the last level; no row both dropped and kept.
  EXPECT_THROW(make_rescale(preset, preset.levels), InvalidArgument);
  EXPECT_THROW(make_mod_down_rescale(preset, preset.levels), InvalidArgument);
  EXPECT_THROW(make_rns_scale_down(preset, {{2, 2}}, {3, 4}), InvalidArgument);
  EXPECT_THROW(make_rns_scale_down(preset, {{9, 1}}, {3, 4}), InvalidArgument);
}

}  // namespace
}  // namespace fhe
