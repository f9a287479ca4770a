// Order statistics and moments of timing samples: the few formulas every
// part of the recommender shares (scoring, bootstrap, evidence, outliers).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace fhelium {

// Median of `values` (mean of the two middle values for an even count).
// Throws InvalidArgument when empty.
double median(std::span<const double> values);
double mean(std::span<const double> values);
// Sample standard deviation (n - 1 denominator); 0 for fewer than 2 values.
double sample_stddev(std::span<const double> values);
// Coefficient of variation stdev / mean in percent; 0 when the mean is 0.
double cv_pct(std::span<const double> values);
// Linear-interpolation quantile (q in [0, 1]) of already sorted values.
double sorted_quantile(std::span<const double> sorted, double q);

// Samples outside Tukey's fences [Q1 - k IQR, Q3 + k IQR].
struct OutlierCount {
  std::size_t low = 0;
  std::size_t high = 0;
  std::size_t total() const { return low + high; }
};
OutlierCount tukey_outliers(std::span<const double> values, double k = 1.5);

}  // namespace fhelium
