// The report's sections, in reading order: summary, inputs, provenance
// check, fleet view, then per deployment context the side-by-side table,
// patterns, decision walk, charts and describe contrast.
#include "recommend/report_builder.h"

#include <algorithm>
#include <map>

#include "recommend/evidence.h"
#include "recommend/report_describe.h"
#include "recommend/report_svg.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

std::vector<std::string> strings_at(const nlohmann::json& object, const char* key) {
  std::vector<std::string> out;
  if (object.is_object() && object.contains(key) && object[key].is_array())
    for (const auto& v : object[key]) out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

std::string context_name(const DeploymentContext& c) {
  return c.gpu_name + (c.gpu_uuid == "absent" ? "" : " [" + c.gpu_uuid + "]") + ", preset " + c.preset;
}

std::string command_of(const LoadedEvidence& file) {
  const auto& p = file.document.value("provenance", nlohmann::json::object());
  const auto argv = strings_at(p, "argv");
  return argv.empty() ? "(not recorded)" : join(argv, " ");
}

// One side-by-side cell: rank and score with its interval, or why there is none.
std::string scope_cell(const LoadedEvidence& file, const std::string& backend) {
  for (const RankedRow& row : file.analysis.rows)
    if (row.backend == backend)
      return "#" + std::to_string(row.rank) + " · S " + format_number(row.score, 4) + " [" +
             format_number(row.score_ci95.low, 4) + ", " + format_number(row.score_ci95.high, 4) + "]";
  for (const auto& check : file.document.value("correctness", nlohmann::json::array()))
    if (check.value("backend", "") == backend && !check.value("passed", true)) return "failed correctness";
  for (const auto& r : file.document["metadata"].value("rejected_backends", nlohmann::json::array()))
    if (r.is_object() && r.value("backend", "") == backend) return "rejected: incompatible";
  return "not measured";
}

void side_by_side(ReportDocument& doc, const DeploymentContext& context) {
  std::vector<std::string> backends;
  auto add = [&](const std::string& b) {
    if (std::find(backends.begin(), backends.end(), b) == backends.end()) backends.push_back(b);
  };
  for (const LoadedEvidence* file : context.files) {
    for (const RankedRow& row : file->analysis.rows) add(row.backend);
    for (const auto& b : strings_at(file->document["metadata"], "backends")) add(b);
  }
  // Short headers: each scope's timed boundary is long, so it goes in the
  // list under the table rather than in a column title.
  std::vector<std::string> header = {"backend"};
  for (const LoadedEvidence* file : context.files) header.push_back(file->label + " — rank · score [95% CI]");
  std::vector<std::vector<std::string>> rows;
  for (const auto& backend : backends) {
    std::vector<std::string> row = {backend};
    for (const LoadedEvidence* file : context.files) row.push_back(scope_cell(*file, backend));
    rows.push_back(std::move(row));
  }
  doc.table(header, rows);
  std::vector<std::string> legend;
  for (const LoadedEvidence* file : context.files) {
    const auto& boundary = file->document["metadata"].value("timed_boundary", nlohmann::json::object());
    const auto& r = file->analysis.decision;
    const auto includes = strings_at(boundary, "includes");
    legend.push_back(file->label + ": recommends " + r.recommended_backend + " (confidence " +
                     std::string(confidence_name(r.confidence)) + "); timed: " +
                     (includes.empty() ? "boundary not recorded" : join(includes, "; ")) +
                     "; outside the timed region: " + join(strings_at(boundary, "excludes"), "; ") +
                     "; synchronisation: " + boundary.value("synchronisation", std::string("not recorded")));
  }
  doc.list(legend);
}

void patterns_section(ReportDocument& doc, const PatternReport& patterns) {
  if (patterns.findings.empty()) {
    doc.paragraph("No pattern of the table was found in this evidence.");
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : patterns.findings)
      rows.push_back({std::string(pattern_name(f.pattern)), f.scope, f.evidence,
                      std::string(pattern_meaning(f.pattern)), std::string(pattern_next_check(f.pattern))});
    doc.table({"pattern", "scope", "what the evidence shows", "likely reason", "next check"}, rows);
  }
  if (!patterns.notes.empty()) doc.list(patterns.notes);
}

void decision_section(ReportDocument& doc, const DeploymentDecision& d) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& step : d.steps)
    rows.push_back({std::to_string(step.number), step.title, step.conclusion, step.incomplete ? "open" : "done"});
  doc.table({"step", "what it asks", "what this evidence gives", "status"}, rows);
  doc.paragraph("Decision: " + d.backend + " — confidence " + d.confidence + ", decided at the " +
                d.deciding_scope + " scope. Apply it in every engine that must reproduce the deployment:");
  doc.code(d.apply);
  if (d.fallback_kept)
    doc.warning("the " + d.deciding_scope + " suite's documented recommendation is " +
                d.documented_recommendation + "; step 4 keeps the stable fallback " + d.backend +
                " because the evidence is not consistent. Repeat the run on a quiet machine before encoding " +
                d.documented_recommendation + ".");
}

void charts(ReportDocument& doc, const LoadedEvidence& file) {
  const auto& rows_json = file.document["rows"];
  const auto operations = strings_at(file.document["metadata"], "operations");
  ChartSpec ratio{file.label + ": per-operation ratio r(b,o) to the fastest", "ratio (1 = fastest)", NAN, "", {}};
  // The document's rows name their operations (the analysis' vectors follow the grid's order).
  for (const auto& row : rows_json)
    for (const auto& op : operations)
      if (row["ratio"].contains(op))
        ratio.rows.push_back({row["backend"].get<std::string>(), op, row["ratio"][op].get<double>(), NAN, NAN, {}});
  doc.svg(svg_chart(ratio), "per-operation ratio bars per backend, " + file.label);

  const double best = file.analysis.rows.front().score;
  ChartSpec score{file.label + ": score S(b) with its bootstrap 95% interval", "score", best * (1 + kNearTieBand),
                  "near-tie band (3%)", {}};
  for (const RankedRow& row : file.analysis.rows)
    score.rows.push_back({"", row.backend, row.score, row.score_ci95.low, row.score_ci95.high, {}});
  doc.svg(svg_chart(score), "scores with bootstrap 95% intervals (whiskers); dashed line: 3% near-tie band, " +
                                file.label);

  // Repetition medians relative to the best median of the operation, so
  // operations of different durations share one axis.
  std::map<std::string, double> best_median;
  for (const auto& row : rows_json)
    for (const auto& [op, ms] : row["median_ms"].items())
      best_median[op] = best_median.count(op) ? std::min(best_median[op], ms.get<double>()) : ms.get<double>();
  ChartSpec reps{file.label + ": per-repetition medians / best median of the operation", "relative median", NAN,
                 "", {}};
  for (const auto& op : operations)
    for (const RankedRow& row : file.analysis.rows) {
      ChartRow chart_row{op, row.backend, NAN, NAN, NAN, {}};
      for (const auto& e : file.document["evidence"])
        if (e["backend"] == row.backend && e["operation"] == op && e.contains("median_ms") && best_median.count(op))
          chart_row.dots.push_back(e["median_ms"].get<double>() / best_median[op]);
      reps.rows.push_back(std::move(chart_row));
    }
  doc.svg(svg_chart(reps), "one dot per repetition median, " + file.label);
}

// The profile's counters of the two leading backends, or how to make them.
void profile_part(ReportDocument& doc, const DeploymentDecision& d, const std::vector<LoadedProfile>& profiles) {
  const auto& metadata = d.deciding->document.value("metadata", nlohmann::json::object());
  if (profiles.empty() && metadata.value("device", std::string()) == "cpu") {
    doc.paragraph("No profile: hardware counters (fhelium benchmark profile ntt) are measured on CUDA devices "
                  "only, and this evidence is from the CPU.");
    return;
  }
  if (profiles.empty()) {
    doc.paragraph("No profile was given. Measured counters of these two backends (kernel durations, achieved "
                  "occupancy, L1/L2 sectors, DRAM bytes and bandwidth, warp stall reasons) can be added: run `" +
                  profile_command_for(*d.deciding, d.leading) +
                  "` on that GPU and pass `--profile profile.json` to `fhelium report`.");
    return;
  }
  const ProfileContrast contrast = profile_contrast(profiles, *d.deciding, d.leading);
  doc.paragraph("Profile of " + d.leading[0] + " and " + d.leading[1] + " (fhelium benchmark profile ntt), " +
                contrast.note + ".");
  for (const auto& warning : contrast.warnings) doc.warning(warning);
  if (contrast.available) doc.table(contrast.header, contrast.rows);
}

void describe_section(ReportDocument& doc, const DeploymentDecision& d, const ReportOptions& options) {
  if (d.leading.size() < 2) {
    doc.paragraph("Only one ranked backend: no contrast to describe.");
    return;
  }
  profile_part(doc, d, options.profiles);
  if (!options.describe) {
    doc.paragraph("Describe contrast of " + d.leading[0] + " and " + d.leading[1] + ": not requested.");
    return;
  }
  const DescribeContrast contrast = describe_contrast(*d.deciding, d.leading);
  doc.paragraph("Kernel launches of " + d.leading[0] + " and " + d.leading[1] + " (the two best of " +
                d.deciding_scope + "), from NttPlan::describe: " + contrast.note + ".");
  if (contrast.available) doc.table(contrast.header, contrast.rows);
  // A reader may take the contrast for the choice's reason: say when it is not.
  if (std::find(d.leading.begin(), d.leading.end(), d.backend) == d.leading.end()) {
    doc.paragraph("The recommended " + d.backend + " is neither of these two: the contrast explains the "
                  "numerical ranking, and the choice comes from the decision's steps above.");
  }
}

}  // namespace

ReportModel build_model(const std::vector<LoadedEvidence>& inputs, bool archived) {
  ReportModel model;
  model.inputs = &inputs;
  model.contexts = group_contexts(inputs);
  for (const auto& context : model.contexts) {
    model.decisions.push_back(walk_decision(context, archived));
    model.patterns.push_back(classify_patterns(context));
  }
  model.differences = provenance_differences(inputs);
  return model;
}

ReportDocument build_report(const ReportModel& model, const ReportOptions& options) {
  ReportDocument doc;
  doc.title = "FHElium NTT backend deployment report";
  doc.paragraph("Generated " + options.generated_utc + " by: " + options.command);

  doc.heading("Summary");
  std::vector<std::string> summary;
  for (std::size_t i = 0; i < model.contexts.size(); ++i)
    summary.push_back(context_name(model.contexts[i]) + ": use " + model.decisions[i].backend + " (confidence " +
                      model.decisions[i].confidence + ", decided at the " + model.decisions[i].deciding_scope +
                      " scope)");
  doc.list(summary);
  doc.paragraph("Each decision holds for its own GPU and preset only. This report never promotes one "
                "machine's winner to a library-wide default, and the library default stays unchanged.");

  doc.heading("Inputs");
  std::vector<std::vector<std::string>> inputs;
  for (const auto& file : *model.inputs)
    inputs.push_back({file.path.filename().string(), file.label, file.context.gpu_name, file.context.preset,
                      std::to_string(file.analysis.repetitions) + " x " + std::to_string(file.analysis.runs),
                      file.sha256.empty() ? "(in memory)" : file.sha256.substr(0, 16), command_of(file)});
  doc.table({"file", "suite", "GPU", "preset", "repetitions x runs", "SHA-256 (first 16)", "command"}, inputs);

  doc.heading("Provenance check");
  if (model.differences.empty()) {
    doc.paragraph("All inputs agree on GPU name and UUID, driver, CUDA runtime, git commit and dirty flag, "
                  "build type and flags, and preset with its primes hash.");
  } else {
    for (const auto& difference : model.differences) {
      std::vector<std::string> values;
      for (std::size_t i = 0; i < difference.values.size(); ++i)
        values.push_back((*model.inputs)[i].path.filename().string() + ": " + difference.values[i]);
      doc.warning("the inputs differ in " + difference.field + " (" + join(values, "; ") +
                  "). Rankings taken under different conditions are not directly comparable.");
    }
  }
  for (const auto& file : *model.inputs)
    if (const std::string warning = test_only_preset_warning(file.document); !warning.empty()) {
      doc.warning(file.path.filename().string() + ": " + warning + ".");
      break;
    }
  for (const auto& file : *model.inputs)
    if (file.context.git_commit == "unknown" || file.context.git_commit == "absent") {
      doc.warning(file.path.filename().string() + " records no git commit (" + file.context.git_commit +
                  "): the build it measured cannot be identified beyond its version and flags.");
      break;
    }

  if (model.contexts.size() > 1) {
    doc.heading("Fleet view");
    doc.paragraph("Decisions per GPU and preset. A backend that wins on one row is not evidence for another row; "
                  "nothing here is a global default.");
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> decided;
    for (const auto& d : model.decisions) decided.push_back(d.backend);
    const bool all_same = std::all_of(decided.begin(), decided.end(),
                                      [&](const std::string& b) { return b == decided.front(); });
    for (std::size_t i = 0; i < model.contexts.size(); ++i) {
      std::vector<std::string> per_scope;
      for (const LoadedEvidence* file : model.contexts[i].files)
        per_scope.push_back(file->label + ": " + file->analysis.decision.recommended_backend);
      rows.push_back({model.contexts[i].gpu_name, model.contexts[i].preset, join(per_scope, "; "),
                      model.decisions[i].backend, model.decisions[i].confidence,
                      all_same ? "same everywhere" : "differs across the fleet"});
    }
    doc.table({"GPU", "preset", "recommendation per scope", "decision", "confidence", "choice"}, rows);
  }

  for (std::size_t i = 0; i < model.contexts.size(); ++i) {
    const auto& context = model.contexts[i];
    doc.heading("Deployment: " + context_name(context));
    doc.heading("Side by side", 3);
    side_by_side(doc, context);
    doc.heading("Result pattern", 3);
    patterns_section(doc, model.patterns[i]);
    doc.heading("Deployment decision, step by step", 3);
    decision_section(doc, model.decisions[i]);
    doc.heading("Charts", 3);
    for (const LoadedEvidence* file : context.files) charts(doc, *file);
    doc.heading("Describe contrast", 3);
    describe_section(doc, model.decisions[i], options);
  }
  return doc;
}

}  // namespace fhelium
