// Pattern rules. Thresholds are the decision's own: the 3 % near-tie band
// decides "near tie" and "clear", the 5 % high-confidence margin decides a
// "strong" win, the 5 % CV limit decides "high CV", so a pattern never
// contradicts the confidence printed beside it.
#include "recommend/report_patterns.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "recommend/text_table.h"

namespace fhelium {
namespace {

const nlohmann::json* row_of(const LoadedEvidence& file, const std::string& backend) {
  for (const auto& row : file.document["rows"])
    if (row["backend"] == backend) return &row;
  return nullptr;
}

// Fastest backend of one operation: the row with the smallest ratio (1 for the fastest).
std::string fastest_on(const LoadedEvidence& file, const std::string& operation) {
  std::string best;
  double best_ratio = INFINITY;
  for (const auto& row : file.document["rows"]) {
    if (!row["ratio"].contains(operation)) continue;
    const double r = row["ratio"][operation].get<double>();
    if (r < best_ratio) best_ratio = r, best = row["backend"].get<std::string>();
  }
  return best;
}

// A clear winner is outside the near-tie band (its runner-up more than 3 % behind).
bool clear_win(const Decision& d) {
  return !std::isnan(d.runner_up_margin_pct) && !within(d.runner_up_margin_pct, kNearTieBand * 100.0);
}

// A near tie: a runner-up inside the 3 % band (a single candidate is neither).
bool near_tie(const Decision& d) { return !std::isnan(d.runner_up_margin_pct) && !clear_win(d); }

std::string pct(double value) { return format_number(value, 2) + "%"; }

// Winner changes that a near tie explains: the winner's CV is low and every
// repetition's winner is one of the near-tied backends (the seed's table
// still lists the pattern; this says which reading the numbers favour).
bool changes_within_tie(const Decision& d) {
  if (!within(d.winner_median_cv_pct, kHighCvPct) || d.near_tied_backends.size() < 2) return false;
  return std::all_of(d.repetition_winners.begin(), d.repetition_winners.end(), [&](const std::string& w) {
    return std::find(d.near_tied_backends.begin(), d.near_tied_backends.end(), w) != d.near_tied_backends.end();
  });
}

void compare_scopes(const LoadedEvidence& lower, const LoadedEvidence& upper, PatternReport& out) {
  const Decision& l = lower.analysis.decision;
  const Decision& u = upper.analysis.decision;
  const std::string scope = lower.label + " -> " + upper.label;
  const std::string& lw = l.numerical_winner;
  const bool lower_is_kernel = lower.suite == "kernel";
  const bool wins_both_directions = !lower_is_kernel || (fastest_on(lower, "forward_ntt") == lw &&
                                                         fastest_on(lower, "inverse_ntt") == lw);
  if (lw == u.numerical_winner && wins_both_directions) {
    std::string evidence =
        lw + " is the numerical winner of both scopes" + (lower_is_kernel ? " and the fastest forward and inverse NTT" : "");
    // The winner of a near tie agrees with another scope's by little more than chance: say so.
    bool tied = false;
    for (const LoadedEvidence* file : {&lower, &upper}) {
      const Decision& d = file->analysis.decision;
      if (near_tie(d)) {
        evidence += "; " + file->label + " is a near tie (margin " + pct(d.runner_up_margin_pct) + ")";
        tied = true;
      }
    }
    if (tied) evidence += ", so the agreement is weak evidence";
    out.findings.push_back({Pattern::composition_preserved, scope, evidence});
    return;
  }
  const nlohmann::json* upper_row = row_of(upper, lw);
  const double upper_gap = upper_row ? (*upper_row)["gap_pct"].get<double>() : NAN;
  // Diluted: within the band of the best there, and the higher scope is a
  // near tie (a clear win of the same backend is not a dilution).
  if (reaches(l.runner_up_margin_pct, kHighMarginPct) && upper_row && within(upper_gap, kNearTieBand * 100.0) &&
      (lw != u.numerical_winner || !clear_win(u))) {
    out.findings.push_back({Pattern::kernel_win_diluted, scope,
                            lw + " leads " + lower.label + " by " + pct(l.runner_up_margin_pct) +
                                " but is within " + pct(upper_gap) + " of the best in " + upper.label});
    return;
  }
  if (clear_win(l) && clear_win(u) && lw != u.numerical_winner) {
    out.findings.push_back({Pattern::different_clear_winners, scope,
                            lower.label + " picks " + lw + " (margin " + pct(l.runner_up_margin_pct) +
                                "), " + upper.label + " picks " + u.numerical_winner + " (margin " +
                                pct(u.runner_up_margin_pct) + ")"});
    return;
  }
  if (lw == u.numerical_winner) {
    out.notes.push_back(scope + ": same numerical winner " + lw +
                        ", but it is not the fastest in both NTT directions (see the split pattern)");
  } else {
    out.notes.push_back(scope + ": winners " + lw + " and " + u.numerical_winner +
                        " differ, but at least one scope is a near tie, so no table pattern applies");
  }
}

}  // namespace

std::string_view pattern_name(Pattern pattern) {
  switch (pattern) {
    case Pattern::composition_preserved: return "composition preserved";
    case Pattern::kernel_win_diluted: return "lower-scope win diluted to a near tie";
    case Pattern::forward_inverse_split: return "forward/inverse split";
    case Pattern::different_clear_winners: return "scopes pick different clear winners";
    case Pattern::unstable_repetitions: return "unstable repetitions or high CV";
    case Pattern::correctness_failure: return "correctness failure";
  }
  return "?";
}

std::string_view pattern_meaning(Pattern pattern) {
  switch (pattern) {
    case Pattern::composition_preserved:
      return "the transform's advantage carries through the work that surrounds it";
    case Pattern::kernel_win_diluted:
      return "non-NTT work in the composed operation (sampling, element-wise RNS arithmetic, "
             "allocation, key switching) hides most of the transform's advantage";
    case Pattern::forward_inverse_split:
      return "the two directions use different schedules or memory-access orders, so one "
             "backend's layout suits one direction only";
    case Pattern::different_clear_winners:
      return "the composed operation changes what the transform sees: row count, number of "
             "calls, working set and cache or register pressure";
    case Pattern::unstable_repetitions:
      return "the machine state moved during the run (clocks, heat, other work, first-use "
             "costs) or there were too few runs to separate the candidates";
    case Pattern::correctness_failure:
      return "a defect in the specification or the implementation; it is not a timing result";
  }
  return "";
}

std::string_view pattern_next_check(Pattern pattern) {
  switch (pattern) {
    case Pattern::composition_preserved:
      return "time the production evaluator (application suite) before fixing the choice";
    case Pattern::kernel_win_diluted:
      return "read the per-operation ratios of the composed suite and weight them by the "
             "application's own operation mix";
    case Pattern::forward_inverse_split:
      return "profile the forward and the inverse kernels one at a time (see the describe contrast)";
    case Pattern::different_clear_winners:
      return "count the NTT calls per composed operation and profile the operation that dominates";
    case Pattern::unstable_repetitions:
      return "quiet and pin the machine, run again with more repetitions; do not encode a winner yet";
    case Pattern::correctness_failure:
      return "stop ranking that backend and keep the saved failing input and environment";
  }
  return "";
}

PatternReport classify_patterns(const DeploymentContext& context) {
  PatternReport out;
  const LoadedEvidence* kernel = nullptr;
  const LoadedEvidence* primitive = nullptr;
  for (const LoadedEvidence* file : context.files) {
    for (const auto& check : file->document.value("correctness", nlohmann::json::array()))
      if (!check.value("passed", true))
        out.findings.push_back({Pattern::correctness_failure, file->label,
                                check.value("backend", std::string("?")) + ": " +
                                    check.value("summary", std::string("failed"))});
    const Decision& d = file->analysis.decision;
    if (!d.winner_won_every_repetition || !within(d.winner_median_cv_pct, kHighCvPct)) {
      std::ostringstream text;
      text << d.numerical_winner << " won "
           << std::count(d.repetition_winners.begin(), d.repetition_winners.end(), d.numerical_winner)
           << " of " << d.repetition_winners.size() << " repetitions (winners:";
      for (const auto& w : d.repetition_winners) text << ' ' << w;
      text << "); its median within-run CV is " << pct(d.winner_median_cv_pct);
      if (changes_within_tie(d)) {
        text << "; every repetition's winner is among the near-tied backends (within " << pct(kNearTieBand * 100.0)
             << " of the best) and the CV is low, so the changes reflect the tie, which the decision already "
                "handles, more than the machine's state";
      }
      out.findings.push_back({Pattern::unstable_repetitions, file->label, text.str()});
    }
    if (file->suite == "kernel" && !kernel) kernel = file;
    if (file->suite == "ckks-primitive" && !primitive) primitive = file;
  }
  if (kernel) {
    const std::string forward = fastest_on(*kernel, "forward_ntt");
    const std::string inverse = fastest_on(*kernel, "inverse_ntt");
    if (!forward.empty() && !inverse.empty() && forward != inverse)
      out.findings.push_back({Pattern::forward_inverse_split, kernel->label,
                              "fastest forward_ntt: " + forward + ", fastest inverse_ntt: " + inverse});
  }
  if (kernel && primitive) compare_scopes(*kernel, *primitive, out);
  else out.notes.push_back("kernel -> ckks-primitive: needs both suites; missing " +
                           std::string(kernel ? "ckks-primitive" : primitive ? "kernel" : "both"));
  const LoadedEvidence* below_application = primitive ? primitive : kernel;
  bool any_application = false;
  for (const LoadedEvidence* file : context.files)
    if (file->suite == "application") {
      any_application = true;
      if (below_application) compare_scopes(*below_application, *file, out);
    }
  if (!any_application) out.notes.push_back("no application evidence: the production-like scope is not compared");
  return out;
}

}  // namespace fhelium
