// The walk. Step 2's "clearly slower" is the bootstrap interval of a
// backend's kernel score lying wholly above the near-tie band of the best
// score: the documented statistics, not a new threshold.
#include "recommend/report_decision.h"

#include <algorithm>

#include "recommend/evidence.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

const LoadedEvidence* first_of(const DeploymentContext& context, const std::string& suite) {
  for (const LoadedEvidence* file : context.files)
    if (file->suite == suite) return file;
  return nullptr;
}

}  // namespace

DeploymentDecision walk_decision(const DeploymentContext& context, bool archived) {
  DeploymentDecision out;
  const LoadedEvidence* kernel = first_of(context, "kernel");
  const LoadedEvidence* primitive = first_of(context, "ckks-primitive");
  std::vector<const LoadedEvidence*> applications;
  for (const LoadedEvidence* file : context.files)
    if (file->suite == "application") applications.push_back(file);

  // 1. Correctness failures and incompatible strict radices.
  std::vector<std::string> failed, rejected;
  for (const LoadedEvidence* file : context.files) {
    for (const auto& check : file->document.value("correctness", nlohmann::json::array()))
      if (!check.value("passed", true)) failed.push_back(check.value("backend", "?") + " (" + file->label + ")");
    for (const auto& r : file->document["metadata"].value("rejected_backends", nlohmann::json::array()))
      rejected.push_back((r.is_string() ? r.get<std::string>() : r.value("backend", r.dump())) + " (" +
                         file->label + ")");
  }
  out.steps.push_back({1, "Reject correctness failures and incompatible strict radices",
                       "failed the correctness gate: " + join(failed) +
                           "; rejected as incompatible with the preset: " + join(rejected),
                       false});

  // 2. Clearly slower at kernel scope.
  std::vector<std::string> plausible, slower;
  if (kernel) {
    const double band = (1.0 + kNearTieBand) * kernel->analysis.rows.front().score;
    for (const RankedRow& row : kernel->analysis.rows)
      (within(row.score_ci95.low, band) ? plausible : slower).push_back(row.backend);
    out.steps.push_back({2, "Reject clearly slower candidates with the kernel suite",
                         "kernel score interval wholly above " + format_number(band, 4) +
                             " (the 3% band of the best): " + join(slower) + "; still plausible: " +
                             join(plausible),
                         false});
  } else {
    out.steps.push_back({2, "Reject clearly slower candidates with the kernel suite",
                         "no kernel evidence: nothing rejected at this step", true});
  }

  // 3. The primitive suite selects among the plausible candidates.
  if (primitive) {
    const Decision& d = primitive->analysis.decision;
    // The margin is the numerical winner's, which the stable fallback may have replaced.
    const std::string margin = d.runner_up.empty() ? std::string("the only candidate")
                                                   : "margin " + format_number(d.runner_up_margin_pct, 2) +
                                                         "% over " + d.runner_up;
    std::string text = "ckks-primitive recommends " + d.recommended_backend + " (" +
                       std::string(confidence_name(d.confidence)) + " confidence, ";
    text += d.recommended_backend == d.numerical_winner
                ? margin + ")"
                : "the stable fallback, within the near-tie band of the numerical winner " + d.numerical_winner +
                      ": " + margin + ")";
    if (kernel && std::find(plausible.begin(), plausible.end(), d.recommended_backend) == plausible.end())
      text += "; note: the kernel suite found it clearly slower, so the scopes disagree";
    out.steps.push_back({3, "Use the primitive suite to select among plausible candidates", text, false});
  } else {
    out.steps.push_back({3, "Use the primitive suite to select among plausible candidates",
                         "no ckks-primitive evidence: the selection rests on the kernel suite alone", true});
  }

  // 4. The deciding scope: the highest one present; its documented
  // recommendation, unless its repetitions (or its files) disagree.
  std::vector<const LoadedEvidence*> deciding = applications;
  if (deciding.empty()) deciding = {primitive ? primitive : kernel};
  out.deciding = deciding.front();
  const Decision& first = out.deciding->analysis.decision;
  out.documented_recommendation = first.recommended_backend;
  Confidence confidence = first.confidence;
  bool disagree = false, unstable = false;
  std::vector<std::string> labels;
  for (const LoadedEvidence* file : deciding) {
    const Decision& d = file->analysis.decision;
    labels.push_back(file->label);
    disagree = disagree || d.recommended_backend != first.recommended_backend;
    unstable = unstable || !d.winner_won_every_repetition;
    confidence = std::min(confidence, d.confidence);
  }
  out.deciding_scope = join(labels);
  for (const RankedRow& row : out.deciding->analysis.rows)
    if (out.leading.size() < 2) out.leading.push_back(row.backend);
  std::string step4;
  if (first.fallback_applied) {
    step4 = "near tie including the stable fallback: the documented rule already chose " +
            first.recommended_backend;
  } else if (first.near_tied_backends.size() > 1) {
    step4 = "near tie (" + join(first.near_tied_backends) + ") without the stable fallback " +
            first.fallback_backend + ": the documented numerical winner stands";
  } else {
    step4 = "no near tie in " + out.deciding_scope;
  }
  out.backend = first.recommended_backend;
  // The fallback can be kept only where every deciding file ranked it: one
  // that failed the correctness gate, or was not screened, has no evidence.
  const bool fallback_ranked =
      !first.fallback_backend.empty() &&
      std::all_of(deciding.begin(), deciding.end(), [&](const LoadedEvidence* file) {
        const auto& rows = file->analysis.rows;
        return std::any_of(rows.begin(), rows.end(),
                           [&](const RankedRow& row) { return row.backend == first.fallback_backend; });
      });
  if ((unstable || disagree) && out.backend != first.fallback_backend) {
    confidence = Confidence::low;
    step4 += std::string("; ") + (disagree ? "the deciding files recommend different backends"
                                           : "the winner changed between repetitions (" +
                                                 join(first.repetition_winners) + ")");
    if (fallback_ranked) {
      out.fallback_kept = true;
      out.backend = first.fallback_backend;
      step4 += ", so the stable fallback " + out.backend + " is kept instead of the documented " +
               out.documented_recommendation;
      if (std::find(slower.begin(), slower.end(), out.backend) != slower.end())
        step4 += " (kept for stability, not speed: step 2 found it clearly slower at kernel scope)";
    } else {
      step4 += ", but the stable fallback " + (first.fallback_backend.empty() ? "(none)" : first.fallback_backend) +
               " is not ranked in every deciding file (it failed the correctness gate or was not screened), so "
               "the documented " + out.documented_recommendation + " stands, at low confidence";
    }
  } else if (unstable) {
    step4 += "; the winner changed between repetitions and is already the stable fallback";
  } else {
    step4 += "; the winner won every repetition";
  }
  out.steps.push_back({4, "Keep the stable fallback for a near tie or inconsistent repetitions", step4, false});
  out.confidence = std::string(confidence_name(confidence));

  // 5. The production evaluator.
  if (applications.empty()) {
    out.steps.push_back({5, "Benchmark the production evaluator",
                         "missing: no application evidence. The choice is a shortlist decision until "
                         "`fhelium benchmark recommend ntt --suite application --workload matvec` (and "
                         "`--workload keyswitch --levels ...` at the levels that dominate) runs on this "
                         "GPU and preset",
                         true});
  } else {
    std::string text;
    for (const LoadedEvidence* file : applications)
      text += (text.empty() ? "" : "; ") + file->label + " recommends " +
              file->analysis.decision.recommended_backend + " (" +
              std::string(confidence_name(file->analysis.decision.confidence)) + ")";
    out.steps.push_back({5, "Benchmark the production evaluator", text, false});
  }

  // 6. The exact name in every engine: the evidence's own line when the
  // documented choice stands, else the same generator for the fallback.
  const auto& doc = out.deciding->document;
  out.apply = out.fallback_kept
                  ? apply_line(doc["metadata"].value("preset", ""), doc["metadata"].value("device", ""),
                               out.backend)
                  : doc["recommendation"].value("apply", std::string());
  out.steps.push_back({6, "Pass the exact backend name to every engine",
                       out.backend + ", confidence " + out.confidence + ": " + out.apply, false});

  // 7. Archive.
  out.steps.push_back({7, "Archive command, evidence, provenance and application benchmark",
                       std::string(archived ? "command, evidence and provenance archived beside this report "
                                              "(evidence/ and manifest.json)"
                                           : "not archived: run the report again with --archive") +
                           (applications.empty() ? "; the application benchmark is still missing" : ""),
                       !archived || applications.empty()});
  return out;
}

}  // namespace fhelium
