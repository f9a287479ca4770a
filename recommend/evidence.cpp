// Evidence JSON: writing series, correctness and decisions; reading the
// minimum fields back for a rescore.
#include "recommend/evidence.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "fhe/core/error.h"
#include "recommend/statistics.h"

namespace fhelium {
namespace {

using nlohmann::json;

// NaN has no JSON spelling; null says "not defined" (e.g. a margin with one backend).
json number_or_null(double value) { return std::isnan(value) ? json(nullptr) : json(value); }

json interval_json(const Interval& interval) {
  return json::array({number_or_null(interval.low), number_or_null(interval.high)});
}

json per_operation(const std::vector<std::string>& ops, const std::vector<double>& values) {
  json out = json::object();
  for (std::size_t o = 0; o < ops.size(); ++o) out[ops[o]] = values[o];
  return out;
}

[[noreturn]] void bad(const std::string& what) {
  throw fhe::InvalidArgument("not valid evidence: " + what);
}

// `where` is a view so a literal makes no temporary string (GCC 13 would
// warn of a dangling reference to it at every call).
const json& require(const json& object, const char* key, std::string_view where) {
  if (!object.is_object() || !object.contains(key)) bad(std::string(where) + " lacks '" + key + "'");
  return object.at(key);
}

std::string require_string(const json& object, const char* key, const std::string& where) {
  const json& value = require(object, key, where);
  if (!value.is_string() || value.get<std::string>().empty())
    bad(where + "." + key + " must be a non-empty string");
  return value.get<std::string>();
}

std::vector<std::string> string_list(const json& value, const std::string& where) {
  if (!value.is_array()) bad(where + " must be an array of strings");
  std::vector<std::string> out;
  for (const json& item : value) {
    if (!item.is_string()) bad(where + " must be an array of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

SampleSeries series_from_json(const json& entry, const std::string& where) {
  SampleSeries s;
  s.backend = require_string(entry, "backend", where);
  s.operation = require_string(entry, "operation", where);
  const json& repetition = require(entry, "repetition", where);
  if (!repetition.is_number_integer() || repetition.get<long long>() < 0)
    bad(where + ".repetition must be an integer >= 0");
  s.repetition = repetition.get<int>();
  const json& samples = require(entry, "samples_ms", where);
  if (!samples.is_array() || samples.empty()) bad(where + ".samples_ms must be a non-empty array");
  for (const json& t : samples) {
    if (!t.is_number()) bad(where + ".samples_ms must hold numbers");
    s.samples_ms.push_back(t.get<double>());
  }
  // Optional GPU fields: kept when they line up with the samples.
  if (entry.contains("sm_clock_mhz") && entry["sm_clock_mhz"].is_array() &&
      entry["sm_clock_mhz"].size() == s.samples_ms.size()) {
    for (const json& c : entry["sm_clock_mhz"])
      s.sm_clock_mhz.push_back(c.is_number() ? c.get<double>() : std::nan(""));
  }
  if (entry.contains("throttled") && entry["throttled"].is_array() &&
      entry["throttled"].size() == s.samples_ms.size()) {
    for (const json& flag : entry["throttled"]) s.throttled.push_back(flag.is_boolean() && flag.get<bool>());
  }
  return s;
}

// Hand-written files spell small seeds as plain (signed) JSON integers.
bool is_seed(const json& object, const char* key) {
  if (!object.contains(key)) return false;
  const json& value = object.at(key);
  return value.is_number_unsigned() || (value.is_number_integer() && value.get<long long>() >= 0);
}

// The recommender's exit-1 file: no evidence, every backend failed the gate.
bool all_failed(const json& document) {
  if (!document.contains("correctness") || !document["correctness"].is_array() || document["correctness"].empty())
    return false;
  return std::all_of(document["correctness"].begin(), document["correctness"].end(),
                     [](const json& record) { return record.is_object() && record.value("passed", true) == false; });
}

// A file whose samples contradict its own metadata (a sample or a
// repetition removed) would be scored as a different run without a word.
void check_counts(const json& metadata, const std::vector<SampleSeries>& series) {
  if (metadata.contains("runs") && metadata["runs"].is_number_integer()) {
    const auto runs = static_cast<std::size_t>(metadata["runs"].get<std::int64_t>());
    for (const SampleSeries& s : series)
      if (s.samples_ms.size() != runs)
        bad("metadata.runs is " + std::to_string(runs) + " but " + s.backend + " / " + s.operation +
            " / repetition " + std::to_string(s.repetition) + " has " + std::to_string(s.samples_ms.size()) +
            " samples");
  }
  if (metadata.contains("repetitions") && metadata["repetitions"].is_number_integer()) {
    const auto repetitions = static_cast<std::size_t>(metadata["repetitions"].get<std::int64_t>());
    std::vector<int> seen;
    for (const SampleSeries& s : series)
      if (std::find(seen.begin(), seen.end(), s.repetition) == seen.end()) seen.push_back(s.repetition);
    if (seen.size() != repetitions)
      bad("metadata.repetitions is " + std::to_string(repetitions) + " but the samples hold " +
          std::to_string(seen.size()));
  }
}

}  // namespace

json series_to_json(const SampleSeries& s) {
  const OutlierCount outliers = tukey_outliers(s.samples_ms);
  json out = {{"backend", s.backend},
              {"operation", s.operation},
              {"repetition", s.repetition},
              {"samples_ms", s.samples_ms},
              {"median_ms", median(s.samples_ms)},
              {"mean_ms", mean(s.samples_ms)},
              {"std_ms", sample_stddev(s.samples_ms)},
              {"cv_pct", cv_pct(s.samples_ms)},
              {"min_ms", *std::min_element(s.samples_ms.begin(), s.samples_ms.end())},
              {"max_ms", *std::max_element(s.samples_ms.begin(), s.samples_ms.end())},
              {"outliers", {{"low", outliers.low}, {"high", outliers.high}}}};
  if (!s.sm_clock_mhz.empty()) {
    json clocks = json::array();
    for (double c : s.sm_clock_mhz) clocks.push_back(number_or_null(c));
    out["sm_clock_mhz"] = clocks;
  }
  if (!s.throttle_reasons.empty()) out["throttle_reasons"] = s.throttle_reasons;
  if (!s.throttled.empty()) {
    out["throttled"] = s.throttled;
    out["throttled_count"] = s.throttled_count();
  }
  return out;
}

json correctness_to_json(const CorrectnessRecord& r) {
  json out = {{"backend", r.backend}, {"passed", r.passed}, {"summary", r.summary}, {"checks", r.checks}};
  if (!r.failing_input_file.empty()) out["failing_input_file"] = r.failing_input_file;
  return out;
}

std::string apply_line(const std::string& preset, const std::string& device,
                       const std::string& backend) {
  return "fhe::CkksEngine engine(\"" + preset + "\", {.device = \"" + device +
         "\", .ntt_backend = \"" + backend + "\"});";
}

std::string test_only_preset_warning(const json& document) {
  const json preset = document.value("provenance", json::object()).value("preset", json::object());
  if (!preset.value("test_only", false)) return "";
  return preset.value("name", std::string("this preset")) +
         " is a test-only preset (below the 128-bit security budget): its ranking is for tests, not a deployment";
}

void put_analysis(json& document, const Analysis& analysis, const MeasurementGrid& grid,
                  const DecisionConfig& config) {
  const json& metadata = document.at("metadata");
  json rows = json::array();
  for (const RankedRow& row : analysis.rows) {
    rows.push_back({{"rank", row.rank},
                    {"backend", row.backend},
                    {"score", row.score},
                    {"gap_pct", row.gap_pct},
                    {"wins", row.wins},
                    {"cv_pct", row.cv_pct},
                    {"score_ci95", interval_json(row.score_ci95)},
                    {"median_ms", per_operation(grid.operations, row.median_ms)},
                    {"ratio", per_operation(grid.operations, row.ratio)},
                    {"samples", row.samples},
                    {"outliers", row.outliers},
                    {"throttled_samples", row.throttled}});
  }
  document["rows"] = rows;

  const Decision& d = analysis.decision;
  const std::string preset = metadata.value("preset", std::string("<preset>"));
  const std::string device = metadata.value("device", std::string("cpu"));
  document["recommendation"] = {
      {"recommended_backend", d.recommended_backend},
      {"numerical_winner", d.numerical_winner},
      {"runner_up", d.runner_up.empty() ? json(nullptr) : json(d.runner_up)},
      {"runner_up_margin_pct", number_or_null(d.runner_up_margin_pct)},
      {"margin_ci95_pct", interval_json(d.margin_ci95_pct)},
      {"confidence", confidence_name(d.confidence)},
      {"documented_confidence", confidence_name(d.documented_confidence)},
      {"policy", policy_name(d.policy)},
      {"fallback_backend", d.fallback_backend},
      {"fallback_applied", d.fallback_applied},
      {"winner_median_cv_pct", d.winner_median_cv_pct},
      {"winner_won_every_repetition", d.winner_won_every_repetition},
      {"near_tied_backends", d.near_tied_backends},
      {"repetition_winners", d.repetition_winners},
      {"measurement_orders", metadata.value("measurement_orders", json::array())},
      {"reasons", d.reasons},
      {"reason_codes", d.reason_codes},
      {"apply", apply_line(preset, device, d.recommended_backend)}};

  document["analysis"] = {
      {"scoring",
       {{"rule", "S(b) = exp(sum_o w_o log r(b,o)), r(b,o) = median(b,o) / min_j median(j,o), "
                 "median(b,o) = median over repetitions of per-repetition medians"},
        {"weights", per_operation(grid.operations, config.weights)},
        {"user_weights", config.user_weights},
        {"near_tie_band_pct", 100 * kNearTieBand}}},
      {"bootstrap",
       {{"replicates", analysis.bootstrap.replicates},
        {"seed", analysis.bootstrap.seed},
        {"confidence_level", 0.95},
        {"method", "percentile; repetitions resampled jointly across backends, then samples "
                   "within each repetition; margin = min over b != winner of S(b)/S(winner) - 1"}}},
      {"outliers",
       {{"method", "Tukey fences 1.5 IQR per backend/operation/repetition"},
        {"outlier_samples", analysis.outlier_samples},
        {"total_samples", analysis.total_samples}}},
      {"throttling",
       {{"rule", "SM clock below 90% of the run's highest SM clock, or an NVML slowdown reason "
                 "(power cap, hardware slowdown, thermal, power brake)"},
        {"throttled_samples", analysis.throttled_samples}}},
      {"runs", analysis.runs},
      {"repetitions", analysis.repetitions}};
}

EvidenceInput read_evidence(const json& document) {
  if (!document.is_object()) bad("the document is not a JSON object");
  const json& metadata = require(document, "metadata", "the document");
  if (!metadata.is_object()) bad("metadata must be an object");
  EvidenceInput input;
  input.device = fhe::parse_device(require_string(metadata, "device", "metadata"));

  const json& entries = require(document, "evidence", "the document");
  if (entries.is_array() && entries.empty() && all_failed(document))
    bad("every backend failed the correctness gate, so there is nothing to rank; its correctness[] and "
        "failing-input files say why");
  if (!entries.is_array() || entries.empty()) bad("evidence must be a non-empty array");
  std::vector<std::string> seen_backends, seen_ops;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    SampleSeries s = series_from_json(entries[i], "evidence[" + std::to_string(i) + "]");
    if (std::find(seen_backends.begin(), seen_backends.end(), s.backend) == seen_backends.end())
      seen_backends.push_back(s.backend);
    if (std::find(seen_ops.begin(), seen_ops.end(), s.operation) == seen_ops.end())
      seen_ops.push_back(s.operation);
    input.series.push_back(std::move(s));
  }
  check_counts(metadata, input.series);
  input.operations = metadata.contains("operations")
                         ? string_list(metadata["operations"], "metadata.operations")
                         : seen_ops;
  const std::vector<std::string> listed = metadata.contains("backends")
                                              ? string_list(metadata["backends"], "metadata.backends")
                                              : seen_backends;
  std::vector<std::string> failed;
  if (document.contains("correctness")) {
    if (!document["correctness"].is_array()) bad("correctness must be an array");
    for (const json& record : document["correctness"]) {
      if (record.is_object() && record.value("passed", true) == false && record.contains("backend") &&
          record["backend"].is_string())
        failed.push_back(record["backend"].get<std::string>());
    }
  }
  for (const std::string& backend : listed)
    if (std::find(failed.begin(), failed.end(), backend) == failed.end())
      input.candidates.push_back(backend);
  if (input.candidates.empty()) bad("no backend left to rank");

  // Scoring parameters: the latest scoring's (analysis.*) before the run's (metadata.*).
  const json no_analysis = json::object();
  const json& analysis = document.contains("analysis") && document["analysis"].is_object()
                             ? document["analysis"]
                             : no_analysis;
  const json& scoring = analysis.contains("scoring") ? analysis["scoring"] : no_analysis;
  for (const json* source : {&metadata, &scoring}) {
    if (source->contains("weights_text") && (*source)["weights_text"].is_string())
      input.weights_text = (*source)["weights_text"].get<std::string>();
    if (source->contains("policy") && (*source)["policy"].is_string())
      input.policy = (*source)["policy"].get<std::string>();
  }
  if (is_seed(metadata, "seed")) input.bootstrap_seed = metadata["seed"].get<std::uint64_t>();
  if (analysis.contains("bootstrap") && analysis["bootstrap"].is_object()) {
    const json& bootstrap = analysis["bootstrap"];
    if (is_seed(bootstrap, "seed"))
      input.bootstrap_seed = bootstrap["seed"].get<std::uint64_t>();
    if (bootstrap.contains("replicates")) {
      const json& replicates = bootstrap["replicates"];
      if (!replicates.is_number_integer() || replicates.get<std::int64_t>() < 1 ||
          replicates.get<std::int64_t>() > kMaxBootstrapReplicates)
        bad("analysis.bootstrap.replicates must be an integer in [1, " + std::to_string(kMaxBootstrapReplicates) +
            "]");
      input.bootstrap_replicates = replicates.get<int>();
    }
  }
  return input;
}

}  // namespace fhelium
