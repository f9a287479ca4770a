// Ranking, the documented decision and the statistics beyond it.
#include "recommend/decision.h"

#include <algorithm>
#include <cmath>

#include "fhe/core/error.h"
#include "recommend/scoring.h"
#include "recommend/statistics.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

void add_reason(Decision& d, std::string_view code, std::string sentence) {
  d.reason_codes.emplace_back(code);
  d.reasons.push_back(std::move(sentence));
}

std::string pct(double value) { return format_number(value, 2) + "%"; }

// Median over operations x repetitions of the within-run CV of backend b.
double median_cv_pct(const MeasurementGrid& grid, std::size_t b) {
  std::vector<double> cvs;
  for (const auto& per_rep : grid.samples_ms[b])
    for (const auto& samples : per_rep) cvs.push_back(cv_pct(samples));
  return median(cvs);
}

std::vector<RankedRow> build_rows(const MeasurementGrid& grid, const BackendOpMatrix& median_ms,
                                  const Scores& scores, const std::vector<int>& wins,
                                  const BootstrapResult& bootstrap) {
  const std::vector<std::size_t> order = ranking(scores.score);
  const double best_score = scores.score[order.front()];
  std::vector<RankedRow> rows;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const std::size_t b = order[position];
    RankedRow row;
    row.rank = static_cast<int>(position) + 1;
    row.backend = grid.backends[b];
    row.score = scores.score[b];
    row.gap_pct = 100.0 * (scores.score[b] / best_score - 1.0);
    row.wins = wins[b];
    row.cv_pct = median_cv_pct(grid, b);
    row.score_ci95 = bootstrap.score_ci95[b];
    row.median_ms = median_ms[b];
    row.ratio = scores.ratio[b];
    for (std::size_t o = 0; o < grid.operations.size(); ++o) {
      for (int r = 0; r < grid.repetitions; ++r) {
        const auto& samples = grid.samples_ms[b][o][r];
        row.samples += samples.size();
        row.outliers += tukey_outliers(samples).total();
        row.throttled += grid.throttled[b][o][r];
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

Policy parse_policy(std::string_view text) {
  if (text == "documented") return Policy::documented;
  if (text == "strict") return Policy::strict;
  throw fhe::InvalidArgument("unknown policy '" + std::string(text) +
                             "' (expected 'documented' or 'strict')");
}

std::string_view policy_name(Policy policy) {
  return policy == Policy::strict ? "strict" : "documented";
}

std::string_view confidence_name(Confidence confidence) {
  switch (confidence) {
    case Confidence::high: return "high";
    case Confidence::medium: return "medium";
    case Confidence::low: return "low";
  }
  return "low";
}

Confidence documented_confidence(bool fallback_applied, int repetitions, std::size_t runs,
                                 bool won_every_repetition, double margin_pct,
                                 double winner_cv_pct) {
  if (fallback_applied || repetitions < kMinRepetitions || runs < kMinRuns) return Confidence::low;
  if (!won_every_repetition || std::isnan(margin_pct)) return Confidence::low;
  if (reaches(margin_pct, kHighMarginPct) && within(winner_cv_pct, kHighCvPct)) return Confidence::high;
  if (reaches(margin_pct, kMediumMarginPct) && within(winner_cv_pct, kMediumCvPct)) return Confidence::medium;
  return Confidence::low;
}

Analysis analyse(const MeasurementGrid& grid, const DecisionConfig& config) {
  if (config.weights.size() != grid.operations.size())
    throw fhe::InvalidArgument("one weight per operation is required");
  Analysis analysis;
  analysis.runs = grid.min_runs();
  analysis.repetitions = grid.repetitions;

  // The documented score and its winner.
  const RepetitionMedians rep_medians = repetition_medians(grid);
  const BackendOpMatrix median_ms = median_of_repetition_medians(rep_medians);
  const Scores scores = score_backends(median_ms, config.weights);
  const std::vector<std::size_t> order = ranking(scores.score);
  const std::size_t winner = order.front();

  // Per-repetition winners, by the same score on that repetition's medians.
  Decision& d = analysis.decision;
  std::vector<int> wins(grid.backends.size(), 0);
  for (int r = 0; r < grid.repetitions; ++r) {
    const Scores rep = score_backends(repetition_slice(rep_medians, r), config.weights);
    const std::size_t rep_winner = best_backend(rep.score);
    ++wins[rep_winner];
    d.repetition_winners.push_back(grid.backends[rep_winner]);
  }

  analysis.bootstrap = bootstrap_scores(grid, config.weights, winner, config.bootstrap_replicates,
                                        config.bootstrap_seed);
  analysis.rows = build_rows(grid, median_ms, scores, wins, analysis.bootstrap);

  d.policy = config.policy;
  d.fallback_backend = config.fallback_backend;
  d.numerical_winner = grid.backends[winner];
  d.winner_median_cv_pct = analysis.rows.front().cv_pct;
  d.winner_won_every_repetition = wins[winner] == grid.repetitions;
  d.margin_ci95_pct = analysis.bootstrap.margin_ci95_pct;
  if (order.size() > 1) {
    d.runner_up = grid.backends[order[1]];
    d.runner_up_margin_pct = 100.0 * margin_over_field(scores.score, winner);
  } else {
    d.runner_up_margin_pct = std::nan("");
  }
  // Inclusive band: a score of exactly 1.03 x best counts as tied.
  const double tie_limit = (1.0 + kNearTieBand) * scores.score[winner];
  bool fallback_in_tie = false;
  for (std::size_t b : order) {
    if (within(scores.score[b], tie_limit)) {
      d.near_tied_backends.push_back(grid.backends[b]);
      fallback_in_tie = fallback_in_tie || grid.backends[b] == config.fallback_backend;
    }
  }
  d.fallback_applied = fallback_in_tie && d.numerical_winner != config.fallback_backend;
  d.recommended_backend = d.fallback_applied ? config.fallback_backend : d.numerical_winner;
  d.documented_confidence = documented_confidence(
      d.fallback_applied, grid.repetitions, analysis.runs, d.winner_won_every_repetition,
      d.runner_up_margin_pct, d.winner_median_cv_pct);
  d.confidence = d.documented_confidence;

  // Reasons: the rules first, then what lies beyond them.
  const bool fallback_is_candidate =
      std::find(grid.backends.begin(), grid.backends.end(), config.fallback_backend) !=
      grid.backends.end();
  if (d.fallback_applied) {
    add_reason(d, reason::kFallbackApplied,
               "the stable fallback " + config.fallback_backend + " is within " +
                   pct(100 * kNearTieBand) + " of the numerical winner " + d.numerical_winner +
                   ", so the fallback is recommended");
  } else {
    add_reason(d, reason::kNumericalWinnerRecommended,
               d.numerical_winner + " has the best score and is recommended");
  }
  if (d.near_tied_backends.size() > 1) {
    std::string names;
    for (const auto& name : d.near_tied_backends) names += (names.empty() ? "" : ", ") + name;
    add_reason(d, reason::kNearTie, "near tie within " + pct(100 * kNearTieBand) + ": " + names);
    if (!fallback_in_tie) {
      add_reason(d, reason::kNearTieWithoutFallback,
                 "the stable fallback " + config.fallback_backend +
                     " is not in the near-tie set, so the numerical winner stands");
    }
  }
  if (!fallback_is_candidate) {
    add_reason(d, reason::kFallbackNotCandidate,
               "the stable fallback " + config.fallback_backend + " was not among the ranked backends");
  }
  if (order.size() == 1) {
    add_reason(d, reason::kSingleCandidate, "only one backend could be ranked; no margin exists");
  }
  if (grid.repetitions < kMinRepetitions) {
    add_reason(d, reason::kTooFewRepetitions,
               std::to_string(grid.repetitions) + " repetition(s); high or medium confidence needs " +
                   std::to_string(kMinRepetitions));
  }
  if (analysis.runs < kMinRuns) {
    add_reason(d, reason::kTooFewRuns,
               std::to_string(analysis.runs) + " timed run(s) per repetition; high or medium confidence needs " +
                   std::to_string(kMinRuns));
  }
  if (d.winner_won_every_repetition) {
    add_reason(d, reason::kWonEveryRepetition,
               d.numerical_winner + " won all " + std::to_string(grid.repetitions) + " repetition(s)");
  } else {
    add_reason(d, reason::kWinnerChanged,
               d.numerical_winner + " won " + std::to_string(wins[winner]) + " of " +
                   std::to_string(grid.repetitions) + " repetitions");
  }
  if (!std::isnan(d.runner_up_margin_pct)) {
    const std::string margin_text = "margin over the runner-up " + d.runner_up + " is " +
                                    pct(d.runner_up_margin_pct);
    if (!reaches(d.runner_up_margin_pct, kHighMarginPct))
      add_reason(d, reason::kMarginBelow5, margin_text + " (< " + pct(kHighMarginPct) + ")");
    if (!reaches(d.runner_up_margin_pct, kMediumMarginPct))
      add_reason(d, reason::kMarginBelow3, margin_text + " (< " + pct(kMediumMarginPct) + ")");
  }
  const std::string cv_text = "the winner's median within-run CV is " + pct(d.winner_median_cv_pct);
  if (!within(d.winner_median_cv_pct, kHighCvPct))
    add_reason(d, reason::kHighCv, cv_text + " (> " + pct(kHighCvPct) + ")");
  if (!within(d.winner_median_cv_pct, kMediumCvPct))
    add_reason(d, reason::kVeryHighCv, cv_text + " (> " + pct(kMediumCvPct) + ")");

  // Beyond the documented rules.
  const bool ci_in_band = order.size() > 1 && !reaches(d.margin_ci95_pct.low, 100 * kNearTieBand);
  if (ci_in_band) {
    add_reason(d, reason::kMarginCiInTieBand,
               "the bootstrap 95% interval of the margin [" + pct(d.margin_ci95_pct.low) + ", " +
                   pct(d.margin_ci95_pct.high) + "] does not clear the " +
                   pct(100 * kNearTieBand) + " tie band");
  }
  if (config.policy == Policy::strict && d.documented_confidence == Confidence::high && ci_in_band) {
    d.confidence = Confidence::medium;
    add_reason(d, reason::kStrictDowngrade,
               "strict policy: high confidence also needs the margin's interval above the tie "
               "band, so confidence is medium");
  }
  for (const RankedRow& row : analysis.rows) {
    analysis.total_samples += row.samples;
    analysis.outlier_samples += row.outliers;
    analysis.throttled_samples += row.throttled;
  }
  if (analysis.throttled_samples > 0) {
    add_reason(d, reason::kThrottledSamples,
               std::to_string(analysis.throttled_samples) + " of " +
                   std::to_string(analysis.total_samples) + " samples ran at a throttled SM clock");
  }
  for (const RankedRow& row : analysis.rows) {
    if (static_cast<double>(row.outliers) > kManyOutliersShare * static_cast<double>(row.samples)) {
      add_reason(d, reason::kManyOutliers,
                 row.backend + " has " + std::to_string(row.outliers) + " of " +
                     std::to_string(row.samples) + " samples outside Tukey's fences");
      break;
    }
  }
  if (config.user_weights) {
    add_reason(d, reason::kUserWeights, "scores use the user's operation weights");
  }
  return analysis;
}

}  // namespace fhelium
