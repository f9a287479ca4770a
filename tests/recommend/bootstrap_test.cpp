// Bootstrap intervals: seeded, deterministic, and sensible.
#include <gtest/gtest.h>

#include "recommend/bootstrap.h"
#include "tests/recommend/test_support.h"

namespace fhelium {
namespace {

const std::vector<std::string> kOps = {"forward_ntt", "inverse_ntt"};

MeasurementGrid noisy_grid() {
  std::vector<SampleSeries> series = test::uniform_series("a", kOps, {1.0, 2.0}, 3, 10, 0.05);
  auto b = test::uniform_series("b", kOps, {1.1, 2.2}, 3, 10, 0.05);
  series.insert(series.end(), b.begin(), b.end());
  series[0].samples_ms[0] = 1.4;  // break the symmetry so resampling moves medians
  return build_grid(series, {"a", "b"}, kOps);
}

TEST(Bootstrap, SameSeedSameIntervalsOtherSeedOtherIntervals) {
  const MeasurementGrid grid = noisy_grid();
  const std::vector<double> weights = {0.5, 0.5};
  const BootstrapResult first = bootstrap_scores(grid, weights, 0, 300, 1234);
  const BootstrapResult again = bootstrap_scores(grid, weights, 0, 300, 1234);
  const BootstrapResult other = bootstrap_scores(grid, weights, 0, 300, 99);
  ASSERT_EQ(first.score_ci95.size(), 2u);
  for (std::size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(first.score_ci95[b].low, again.score_ci95[b].low);
    EXPECT_EQ(first.score_ci95[b].high, again.score_ci95[b].high);
  }
  EXPECT_EQ(first.margin_ci95_pct.low, again.margin_ci95_pct.low);
  EXPECT_EQ(first.margin_ci95_pct.high, again.margin_ci95_pct.high);
  EXPECT_NE(first.margin_ci95_pct.low, other.margin_ci95_pct.low);
}

TEST(Bootstrap, IntervalsBracketTheTenPercentMargin) {
  const BootstrapResult result = bootstrap_scores(noisy_grid(), std::vector<double>{0.5, 0.5}, 0, 500, 5);
  EXPECT_LE(result.margin_ci95_pct.low, 10.0);
  EXPECT_GE(result.margin_ci95_pct.high, 10.0);
  EXPECT_GT(result.margin_ci95_pct.low, 0.0);  // b is never faster than a
  EXPECT_LE(result.score_ci95[0].low, result.score_ci95[0].high);
  EXPECT_GE(result.score_ci95[1].low, 1.0);
}

}  // namespace
}  // namespace fhelium
