// Order statistics, moments and Tukey outliers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fhe/core/error.h"
#include "recommend/statistics.h"

namespace fhelium {
namespace {

TEST(Statistics, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_THROW(median(std::vector<double>{}), fhe::InvalidArgument);
}

TEST(Statistics, SampleStddevAndCv) {
  const std::vector<double> values = {2, 4, 4, 4, 5, 5, 7, 9};  // mean 5, sum of squares 32
  EXPECT_DOUBLE_EQ(mean(values), 5.0);
  EXPECT_NEAR(sample_stddev(values), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(cv_pct(values), 100.0 * std::sqrt(32.0 / 7.0) / 5.0, 1e-10);
  EXPECT_DOUBLE_EQ(sample_stddev(std::vector<double>{3.0}), 0.0);
}

TEST(Statistics, QuantileInterpolates) {
  const std::vector<double> sorted = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(sorted_quantile(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(sorted_quantile(sorted, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(sorted_quantile(sorted, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(sorted_quantile(sorted, 1.0), 5.0);
}

TEST(Statistics, TukeyFencesCountBothSides) {
  const std::vector<double> values = {10, 10.1, 10.2, 10.1, 10.0, 10.2, 30.0, 1.0};
  const OutlierCount count = tukey_outliers(values);
  EXPECT_EQ(count.high, 1u);
  EXPECT_EQ(count.low, 1u);
  EXPECT_EQ(tukey_outliers(std::vector<double>{1, 1.01, 1.02, 0.99, 1.0}).total(), 0u);
}

}  // namespace
}  // namespace fhelium
