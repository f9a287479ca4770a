// Order statistics and moments of timing samples.
#include "recommend/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fhe/core/error.h"

namespace fhelium {

double median(std::span<const double> values) {
  if (values.empty()) throw fhe::InvalidArgument("median of an empty sample set");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

double mean(std::span<const double> values) {
  if (values.empty()) throw fhe::InvalidArgument("mean of an empty sample set");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double sample_stddev(std::span<const double> values) {
  if (values.size() < 2) return 0.0;
  const double m = mean(values);
  double sum_sq = 0.0;
  for (double v : values) sum_sq += (v - m) * (v - m);
  return std::sqrt(sum_sq / static_cast<double>(values.size() - 1));
}

double cv_pct(std::span<const double> values) {
  const double m = mean(values);
  return m == 0.0 ? 0.0 : 100.0 * sample_stddev(values) / m;
}

double sorted_quantile(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw fhe::InvalidArgument("quantile of an empty sample set");
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

OutlierCount tukey_outliers(std::span<const double> values, double k) {
  OutlierCount count;
  if (values.size() < 4) return count;  // quartiles of 3 or fewer points fence nothing useful
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const double q1 = sorted_quantile(sorted, 0.25);
  const double q3 = sorted_quantile(sorted, 0.75);
  const double low_fence = q1 - k * (q3 - q1);
  const double high_fence = q3 + k * (q3 - q1);
  for (double v : values) {
    if (v < low_fence) ++count.low;
    if (v > high_fence) ++count.high;
  }
  return count;
}

}  // namespace fhelium
