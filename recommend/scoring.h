// The documented score (SPEC section 6), pure and without I/O:
//   median(b,o) = median over repetitions of the per-repetition medians,
//   r(b,o)      = median(b,o) / min_j median(j,o),
//   S(b)        = exp(sum_o w_o log r(b,o)), weights normalised (equal by default).
// The same functions score the whole run, each repetition and each bootstrap
// replicate, so there is one definition of "the winner".
#pragma once

#include <span>
#include <vector>

#include "recommend/measurement_grid.h"

namespace fhelium {

// [backend][operation] of milliseconds or ratios.
using BackendOpMatrix = std::vector<std::vector<double>>;
// [backend][operation][repetition] medians in milliseconds.
using RepetitionMedians = std::vector<std::vector<std::vector<double>>>;

RepetitionMedians repetition_medians(const MeasurementGrid& grid);
// Median over repetitions of the per-repetition medians.
BackendOpMatrix median_of_repetition_medians(const RepetitionMedians& medians);
// The medians of one repetition only (for per-repetition winners).
BackendOpMatrix repetition_slice(const RepetitionMedians& medians, int repetition);

struct Scores {
  BackendOpMatrix ratio;     // r(b,o) >= 1
  std::vector<double> score; // S(b) >= 1
};
// `weights` has one normalised weight per operation (they sum to 1).
Scores score_backends(const BackendOpMatrix& median_ms, std::span<const double> weights);

// Index of the lowest score; the earliest backend wins an exact tie so that
// the result does not depend on sort stability.
std::size_t best_backend(std::span<const double> scores);
// Backend indices from best to worst score (ties keep list order).
std::vector<std::size_t> ranking(std::span<const double> scores);
// min over b != winner of S(b) / S(winner) - 1; negative when another
// backend beats `winner`. NaN with a single backend.
double margin_over_field(std::span<const double> scores, std::size_t winner);

}  // namespace fhelium
