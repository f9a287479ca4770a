// Hierarchical bootstrap of scores and margin.
#include "recommend/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "fhe/core/error.h"
#include "recommend/scoring.h"
#include "recommend/statistics.h"

namespace fhelium {
namespace {

// Uniform integer in [0, n) by rejection, so that it is exact and portable
// (std::uniform_int_distribution differs between standard libraries).
std::size_t draw_below(std::mt19937_64& rng, std::size_t n) {
  const std::uint64_t bound = n;
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod n
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return static_cast<std::size_t>(x % bound);
  }
}

Interval percentile_interval(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {sorted_quantile(values, 0.025), sorted_quantile(values, 0.975)};
}

}  // namespace

BootstrapResult bootstrap_scores(const MeasurementGrid& grid, std::span<const double> weights,
                                 std::size_t winner, int replicates, std::uint64_t seed) {
  if (replicates < 1) throw fhe::InvalidArgument("bootstrap needs at least one replicate");
  const std::size_t backends = grid.backends.size();
  const std::size_t ops = grid.operations.size();
  const std::size_t reps = static_cast<std::size_t>(grid.repetitions);
  std::mt19937_64 rng(seed);

  std::vector<std::vector<double>> score_draws(backends);
  std::vector<double> margin_draws;
  std::vector<std::size_t> drawn_reps(reps);
  std::vector<double> resampled;
  RepetitionMedians medians(backends, std::vector<std::vector<double>>(ops, std::vector<double>(reps)));
  for (int i = 0; i < replicates; ++i) {
    for (std::size_t k = 0; k < reps; ++k) drawn_reps[k] = draw_below(rng, reps);
    for (std::size_t b = 0; b < backends; ++b) {
      for (std::size_t o = 0; o < ops; ++o) {
        for (std::size_t k = 0; k < reps; ++k) {
          const std::vector<double>& samples = grid.samples_ms[b][o][drawn_reps[k]];
          resampled.resize(samples.size());
          for (double& t : resampled) t = samples[draw_below(rng, samples.size())];
          medians[b][o][k] = median(resampled);
        }
      }
    }
    const Scores scores = score_backends(median_of_repetition_medians(medians), weights);
    for (std::size_t b = 0; b < backends; ++b) score_draws[b].push_back(scores.score[b]);
    if (backends > 1) margin_draws.push_back(100.0 * margin_over_field(scores.score, winner));
  }

  BootstrapResult result;
  result.replicates = replicates;
  result.seed = seed;
  for (auto& draws : score_draws) result.score_ci95.push_back(percentile_interval(std::move(draws)));
  if (backends > 1) {
    result.margin_ci95_pct = percentile_interval(std::move(margin_draws));
  } else {
    result.margin_ci95_pct = {std::nan(""), std::nan("")};
  }
  return result;
}

}  // namespace fhelium
