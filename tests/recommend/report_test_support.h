// Hand-made evidence for the report tests: scored documents of one suite
// with chosen per-operation medians and the provenance fields a report
// compares (GPU, driver, commit, preset).
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "recommend/document_scoring.h"
#include "recommend/report_inputs.h"
#include "tests/recommend/test_support.h"

namespace fhelium::test {

inline const std::string kG16 = "radix2_compact_group16_smem8";
inline const std::string kR16 = "radix16_compact";
inline const std::string kG8 = "radix2_compact_group8_smem8";  // the CUDA stable fallback
inline const std::vector<std::string> kKernelOps = {"forward_ntt", "inverse_ntt", "roundtrip"};
inline const std::vector<std::string> kPrimitiveOps = {"encrypt_message", "multiply_relinearize"};

struct Machine {
  std::string gpu = "NVIDIA H200";
  std::string uuid = "GPU-1111";
  std::string driver = "580.159.04";
  std::string commit = "abc123";
  std::string preset = "slots32768-scale40-levels34-int64";
};

// medians[backend] = one median per operation; 3 repetitions x 5 runs.
inline nlohmann::json suite_document(const std::string& suite, const std::vector<std::string>& ops,
                                     const std::vector<std::pair<std::string, std::vector<double>>>& medians,
                                     const Machine& machine = {}) {
  std::vector<SampleSeries> series;
  std::vector<std::string> backends;
  for (const auto& [backend, per_op] : medians) {
    backends.push_back(backend);
    for (auto& s : uniform_series(backend, ops, per_op, 3, 5)) series.push_back(std::move(s));
  }
  nlohmann::json doc = minimal_document(series, backends, ops);
  doc["metadata"]["suite"] = suite;
  doc["metadata"]["preset"] = machine.preset;
  doc["metadata"]["timed_boundary"] = {{"includes", {suite + " boundary"}},
                                       {"excludes", {"setup"}},
                                       {"synchronisation", "events"}};
  doc["provenance"] = {{"device", {{"name", machine.gpu}, {"uuid", machine.uuid},
                                   {"nvml", {{"driver_version", machine.driver}}}}},
                       {"build", {{"git_commit", machine.commit}, {"git_dirty", false}, {"build_type", "Release"}}},
                       {"preset", {{"name", machine.preset}}},
                       {"argv", {"fhelium", "benchmark", "recommend", "ntt", "--suite", suite}}};
  return doc;
}

// An application-suite document whose metadata records `workload` as the
// suite writes it (name, dim/method/diagonal_policy or levels/rotation_step, graph).
inline nlohmann::json application_document(const nlohmann::json& workload, const std::vector<std::string>& ops,
                                           const std::vector<std::pair<std::string, std::vector<double>>>& medians,
                                           const Machine& machine = {}) {
  nlohmann::json doc = suite_document("application", ops, medians, machine);
  doc["metadata"]["workload"] = workload;
  return doc;
}

// Multiplies every sample of one backend/operation/repetition (after scoring: rescore).
inline void scale_series(nlohmann::json& doc, const std::string& backend, const std::string& op, int repetition,
                         double factor) {
  for (auto& e : doc["evidence"])
    if (e["backend"] == backend && e["operation"] == op && e["repetition"] == repetition) {
      for (auto& s : e["samples_ms"]) s = s.get<double>() * factor;
      e["median_ms"] = e["median_ms"].get<double>() * factor;
    }
}

inline LoadedEvidence loaded(const std::string& name, nlohmann::json doc) {
  return load_evidence_document(name, std::move(doc));
}

inline std::filesystem::path write_json(const std::filesystem::path& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(1);
  return path;
}

}  // namespace fhelium::test
