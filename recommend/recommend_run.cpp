// The recommendation run.
#include "recommend/recommend_run.h"

#include "fhe/core/build_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/backend.h"
#include "recommend/application_suite.h"
#include "recommend/atomic_file.h"
#include "recommend/document_scoring.h"
#include "recommend/evidence.h"
#include "recommend/harness.h"
#include "recommend/kernel_suite.h"
#include "recommend/primitive_suite.h"
#include "recommend/provenance.h"
#include "recommend/suite_catalog.h"

namespace fhelium {
namespace {

void write_json(const std::filesystem::path& path, const nlohmann::json& document) {
  write_file_atomically(path, [&](std::ostream& out) { out << document.dump(2) << '\n'; });
}

nlohmann::json metadata_json(const RecommendPlan& plan, const Suite& suite,
                             const HarnessResult& harness) {
  const fhe::ntt::RowRange rows = fhe::ntt::level_rows(*plan.preset, plan.level);
  const TimedBoundary boundary = suite.timed_boundary();
  nlohmann::json rejected = nlohmann::json::array();
  for (const RejectedBackend& r : plan.rejected)
    rejected.push_back({{"backend", r.backend}, {"reason", r.reason}});
  nlohmann::json metadata = {{"suite", suite.name()},
                             {"preset", plan.preset->name},
                             {"device", plan.device.str()},
                             {"backends", plan.backends},
                             {"rejected_backends", rejected},
                             {"operations", suite.operations()},
                             {"warmup", plan.warmup},
                             {"runs", plan.runs},
                             {"repetitions", plan.repetitions},
                             {"seed", plan.seed},
                             {"level", plan.level},
                             {"active_rows", {{"first", rows.first}, {"count", rows.count}}},
                             {"ring_degree", plan.preset->n()},
                             {"weights_text", plan.weights_text},
                             {"policy", policy_name(plan.policy)},
                             {"l2_flush", harness.l2_flush},
                             {"timer", harness.timer},
                             {"clock_probe", harness.clock_probe},
                             {"max_sm_clock_mhz", harness.max_sm_clock_mhz > 0
                                                      ? nlohmann::json(harness.max_sm_clock_mhz)
                                                      : nlohmann::json(nullptr)},
                             {"measurement_orders", harness.measurement_orders},
                             {"timed_boundary",
                              {{"includes", boundary.includes},
                               {"excludes", boundary.excludes},
                               {"synchronisation", boundary.synchronisation}}}};
  if (plan.application) metadata.update(application_metadata(*plan.application));
  return metadata;
}

}  // namespace

std::unique_ptr<Suite> make_suite(const RecommendPlan& plan) {
  if (plan.suite == kKernelSuite)
    return std::make_unique<KernelSuite>(*plan.preset, plan.device, plan.level, plan.seed);
  if (plan.suite == kPrimitiveSuite)
    return make_primitive_suite(*plan.preset, plan.device, plan.level, plan.seed);
  if (plan.suite == kApplicationSuite && plan.application)
    return make_application_suite(*plan.preset, plan.device, plan.application->workload, plan.seed);
  throw fhe::InvalidArgument("unknown suite '" + plan.suite + "'");
}

nlohmann::json run_recommendation(const RecommendPlan& plan, Suite& suite,
                                  const std::vector<std::string>& argv,
                                  const std::function<void(const std::string&)>& progress) {
  nlohmann::json provenance = collect_provenance(plan.device, *plan.preset, argv);
  provenance["activity_before"] = activity_snapshot(plan.device);

  HarnessOptions options;
  options.warmup = plan.warmup;
  options.runs = plan.runs;
  options.repetitions = plan.repetitions;
  options.l2_flush = plan.l2_flush;
  options.device = plan.device;
  options.progress = progress;
  HarnessResult harness = run_harness(suite, plan.backends, options);
  provenance["activity_after"] = activity_snapshot(plan.device);

  // Failing inputs first, so the evidence can name the files it points to.
  for (CorrectnessRecord& record : harness.correctness) {
    if (record.passed || record.failing_input.is_null()) continue;
    const std::filesystem::path path = failing_input_path(plan.output, record.backend);
    nlohmann::json failing = record.failing_input;
    failing["schema_version"] = kEvidenceSchemaVersion;
    failing["provenance"] = provenance;
    write_json(path, failing);
    record.failing_input_file = path.string();
  }

  nlohmann::json document = {{"schema_version", kEvidenceSchemaVersion},
                             {"kind", kEvidenceKind},
                             {"tool", {{"command", "fhelium benchmark recommend ntt"},
                                       {"version", fhe::build_info().version}}},
                             {"metadata", metadata_json(plan, suite, harness)},
                             {"evidence", nlohmann::json::array()},
                             {"correctness", nlohmann::json::array()}};
  for (const SampleSeries& series : harness.series) document["evidence"].push_back(series_to_json(series));
  for (const CorrectnessRecord& record : harness.correctness)
    document["correctness"].push_back(correctness_to_json(record));
  if (harness.ranked_backends.empty()) {
    document["rows"] = nlohmann::json::array();
    document["recommendation"] = nullptr;
  } else {
    score_document(document);
  }
  document["provenance"] = provenance;
  write_json(plan.output, document);
  return document;
}

}  // namespace fhelium
