// The measurements the decision is computed from: ranked candidates x
// operations x repetitions, each cell the raw timed samples. Built from
// SampleSeries records (a fresh run or an evidence file) and validated.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "recommend/sample_series.h"

namespace fhelium {

struct MeasurementGrid {
  std::vector<std::string> backends;    // candidates, in their measurement-list order
  std::vector<std::string> operations;  // suite order
  int repetitions = 0;
  // samples_ms[b][o][r]: the timed samples of one repetition.
  std::vector<std::vector<std::vector<std::vector<double>>>> samples_ms;
  // throttled[b][o][r]: count of samples flagged as throttled.
  std::vector<std::vector<std::vector<std::size_t>>> throttled;

  // Fewest timed samples in any cell: the effective "runs" of the grid.
  std::size_t min_runs() const;
};

// Collects the series of `backends` x `operations` into a grid. Every cell
// must exist exactly once for repetitions 0..R-1 and hold positive finite
// samples; throws InvalidArgument naming the missing or bad cell otherwise.
MeasurementGrid build_grid(std::span<const SampleSeries> series,
                           const std::vector<std::string>& backends,
                           const std::vector<std::string>& operations);

}  // namespace fhelium
