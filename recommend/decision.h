// The decision of SPEC section 6, pure and without I/O: ranking, near tie,
// stable fallback, margin, per-repetition winners, the winner's within-run
// CV and the documented confidence; beside it, and never changing the
// documented recommendation, the statistics beyond the rules (bootstrap
// intervals, outlier and throttle counts, reason codes, the strict policy).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recommend/bootstrap.h"
#include "recommend/measurement_grid.h"

namespace fhelium {

enum class Policy { documented, strict };
enum class Confidence { low, medium, high };

// Throws InvalidArgument for anything but "documented" or "strict".
Policy parse_policy(std::string_view text);
std::string_view policy_name(Policy policy);
std::string_view confidence_name(Confidence confidence);

// Thresholds of the documented rules.
inline constexpr double kNearTieBand = 0.03;         // S(b) <= 1.03 S(best)
inline constexpr double kHighMarginPct = 5.0;
inline constexpr double kMediumMarginPct = 3.0;
inline constexpr double kHighCvPct = 5.0;
inline constexpr double kMediumCvPct = 10.0;
inline constexpr int kMinRepetitions = 3;
inline constexpr std::size_t kMinRuns = 5;

// The rules' threshold tests, inclusive as SPEC section 6 writes them, up to
// a relative 1e-12: scores and margins come out of exp, log and divisions,
// so a value equal to a threshold on paper may land an ulp either side
// (medians 0.1 and 0.105 ms give a margin of 4.99999999999998 %). Every
// test of a threshold (confidence, tie band, reason codes, report patterns)
// goes through these two, so no two of them can disagree at a boundary.
inline constexpr double kThresholdTolerance = 1e-12;
inline bool reaches(double value, double threshold) {  // value >= threshold
  return value >= threshold - kThresholdTolerance * std::abs(threshold);
}
inline bool within(double value, double limit) {  // value <= limit
  return value <= limit + kThresholdTolerance * std::abs(limit);
}
// Beyond the rules: a backend with more than this share of Tukey outliers
// gets MANY_OUTLIERS.
inline constexpr double kManyOutliersShare = 0.10;

// Machine-readable reason codes.
namespace reason {
inline constexpr std::string_view kNumericalWinnerRecommended = "NUMERICAL_WINNER_RECOMMENDED";
inline constexpr std::string_view kFallbackApplied = "FALLBACK_APPLIED";
inline constexpr std::string_view kNearTie = "NEAR_TIE";
inline constexpr std::string_view kNearTieWithoutFallback = "NEAR_TIE_WITHOUT_FALLBACK";
inline constexpr std::string_view kFallbackNotCandidate = "FALLBACK_NOT_A_CANDIDATE";
inline constexpr std::string_view kSingleCandidate = "SINGLE_CANDIDATE";
inline constexpr std::string_view kTooFewRepetitions = "TOO_FEW_REPETITIONS";
inline constexpr std::string_view kTooFewRuns = "TOO_FEW_RUNS";
inline constexpr std::string_view kWonEveryRepetition = "WON_EVERY_REPETITION";
inline constexpr std::string_view kWinnerChanged = "WINNER_CHANGED_BETWEEN_REPETITIONS";
inline constexpr std::string_view kMarginBelow5 = "MARGIN_BELOW_5PCT";
inline constexpr std::string_view kMarginBelow3 = "MARGIN_BELOW_3PCT";
inline constexpr std::string_view kHighCv = "HIGH_CV";            // > 5 %
inline constexpr std::string_view kVeryHighCv = "VERY_HIGH_CV";   // > 10 %
inline constexpr std::string_view kMarginCiInTieBand = "MARGIN_CI_IN_TIE_BAND";
inline constexpr std::string_view kStrictDowngrade = "STRICT_POLICY_DOWNGRADE";
inline constexpr std::string_view kThrottledSamples = "THROTTLED_SAMPLES";
inline constexpr std::string_view kManyOutliers = "MANY_OUTLIERS";
inline constexpr std::string_view kUserWeights = "USER_WEIGHTS";
}  // namespace reason

struct DecisionConfig {
  std::vector<double> weights;  // normalised, one per grid operation
  bool user_weights = false;
  Policy policy = Policy::documented;
  std::string fallback_backend;  // ntt::kStableFallback
  int bootstrap_replicates = kDefaultBootstrapReplicates;
  std::uint64_t bootstrap_seed = 0;
};

struct RankedRow {
  int rank = 0;  // 1 = best score
  std::string backend;
  double score = 0.0;
  double gap_pct = 0.0;  // 100 (S / S(best) - 1)
  int wins = 0;          // repetitions this backend won
  double cv_pct = 0.0;   // median within-run CV over operations x repetitions
  Interval score_ci95;
  std::vector<double> median_ms;  // per operation: median of repetition medians
  std::vector<double> ratio;      // per operation: r(b,o)
  std::size_t samples = 0, outliers = 0, throttled = 0;
};

struct Decision {
  std::string recommended_backend;
  std::string numerical_winner;
  std::string runner_up;                 // empty with a single candidate
  double runner_up_margin_pct = 0.0;     // NaN with a single candidate
  Interval margin_ci95_pct;
  Confidence confidence = Confidence::low;             // under `policy`
  Confidence documented_confidence = Confidence::low;  // the rules alone
  Policy policy = Policy::documented;
  std::string fallback_backend;
  bool fallback_applied = false;
  double winner_median_cv_pct = 0.0;
  bool winner_won_every_repetition = false;
  std::vector<std::string> near_tied_backends;  // best first, includes the winner
  std::vector<std::string> repetition_winners;
  std::vector<std::string> reason_codes;
  std::vector<std::string> reasons;  // one sentence per reason code, same order
};

struct Analysis {
  std::vector<RankedRow> rows;  // best first
  Decision decision;
  BootstrapResult bootstrap;
  std::size_t runs = 0;  // fewest timed samples of any cell
  int repetitions = 0;
  std::size_t total_samples = 0, outlier_samples = 0, throttled_samples = 0;
};

// The documented confidence rule alone (margin and CV in percent).
Confidence documented_confidence(bool fallback_applied, int repetitions, std::size_t runs,
                                 bool won_every_repetition, double margin_pct,
                                 double winner_cv_pct);

Analysis analyse(const MeasurementGrid& grid, const DecisionConfig& config);

}  // namespace fhelium
