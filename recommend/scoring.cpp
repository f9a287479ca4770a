// Ratios to the best median and geometric-mean scores.
#include "recommend/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "fhe/core/error.h"
#include "recommend/statistics.h"

namespace fhelium {

RepetitionMedians repetition_medians(const MeasurementGrid& grid) {
  RepetitionMedians out(grid.backends.size());
  for (std::size_t b = 0; b < grid.backends.size(); ++b) {
    out[b].resize(grid.operations.size());
    for (std::size_t o = 0; o < grid.operations.size(); ++o) {
      for (const auto& samples : grid.samples_ms[b][o]) out[b][o].push_back(median(samples));
    }
  }
  return out;
}

BackendOpMatrix median_of_repetition_medians(const RepetitionMedians& medians) {
  BackendOpMatrix out(medians.size());
  for (std::size_t b = 0; b < medians.size(); ++b) {
    for (const auto& per_rep : medians[b]) out[b].push_back(median(per_rep));
  }
  return out;
}

BackendOpMatrix repetition_slice(const RepetitionMedians& medians, int repetition) {
  BackendOpMatrix out(medians.size());
  for (std::size_t b = 0; b < medians.size(); ++b) {
    for (const auto& per_rep : medians[b]) out[b].push_back(per_rep.at(repetition));
  }
  return out;
}

Scores score_backends(const BackendOpMatrix& median_ms, std::span<const double> weights) {
  if (median_ms.empty()) throw fhe::InvalidArgument("scoring needs at least one backend");
  const std::size_t ops = median_ms.front().size();
  if (weights.size() != ops) throw fhe::InvalidArgument("one weight per operation is required");
  Scores scores;
  scores.ratio.assign(median_ms.size(), std::vector<double>(ops));
  scores.score.assign(median_ms.size(), 0.0);
  for (std::size_t o = 0; o < ops; ++o) {
    double best_ms = std::numeric_limits<double>::infinity();
    for (const auto& row : median_ms) best_ms = std::min(best_ms, row[o]);
    for (std::size_t b = 0; b < median_ms.size(); ++b) scores.ratio[b][o] = median_ms[b][o] / best_ms;
  }
  for (std::size_t b = 0; b < median_ms.size(); ++b) {
    double log_sum = 0.0;
    for (std::size_t o = 0; o < ops; ++o) log_sum += weights[o] * std::log(scores.ratio[b][o]);
    scores.score[b] = std::exp(log_sum);
  }
  return scores;
}

std::size_t best_backend(std::span<const double> scores) {
  std::size_t best = 0;
  for (std::size_t b = 1; b < scores.size(); ++b)
    if (scores[b] < scores[best]) best = b;
  return best;
}

std::vector<std::size_t> ranking(std::span<const double> scores) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  return order;
}

double margin_over_field(std::span<const double> scores, std::size_t winner) {
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < scores.size(); ++b)
    if (b != winner) closest = std::min(closest, scores[b]);
  if (!std::isfinite(closest)) return std::numeric_limits<double>::quiet_NaN();
  return closest / scores[winner] - 1.0;
}

}  // namespace fhelium
