// Bootstrap 95% intervals of the scores and of the winner's margin: a
// statistic reported beside the documented decision, never feeding it.
//
// Two-level (hierarchical) resampling, because the data are nested: each
// replicate draws the repetitions with replacement (one draw shared by every
// backend and operation, since a repetition is a block of time in which all
// candidates ran), then the timed samples within each drawn repetition, and
// recomputes the documented score from the resampled medians. Seeded and
// independent of the standard library's distributions, so a file rescored
// anywhere gives the same intervals.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "recommend/measurement_grid.h"

namespace fhelium {

struct Interval {
  double low = 0.0;
  double high = 0.0;
};

struct BootstrapResult {
  int replicates = 0;
  std::uint64_t seed = 0;
  std::vector<Interval> score_ci95;  // per backend, grid order
  // Of margin_over_field(S, winner) in percent; NaN bounds with one backend.
  Interval margin_ci95_pct;
};

inline constexpr int kDefaultBootstrapReplicates = 2000;
// The most an evidence file may ask a rescore for (10x the default's time).
inline constexpr int kMaxBootstrapReplicates = 20000;

BootstrapResult bootstrap_scores(const MeasurementGrid& grid, std::span<const double> weights,
                                 std::size_t winner, int replicates, std::uint64_t seed);

}  // namespace fhelium
