// The evidence document (SPEC section 8) in JSON: raw series with their
// summary statistics, correctness records, the ranked rows and the
// recommendation, and the reading side used by `fhelium benchmark rescore`,
// which needs only the minimum fields (metadata.device and evidence[] of
// backend, operation, repetition, samples_ms).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/device.h"
#include "recommend/decision.h"
#include "recommend/measurement_grid.h"
#include "recommend/suite.h"

namespace fhelium {

inline constexpr int kEvidenceSchemaVersion = 1;
inline constexpr const char* kEvidenceKind = "fhelium.ntt-recommendation";

nlohmann::json series_to_json(const SampleSeries& series);
nlohmann::json correctness_to_json(const CorrectnessRecord& record);

// The exact C++ line that applies a backend to an engine.
std::string apply_line(const std::string& preset, const std::string& device,
                       const std::string& backend);

// A warning when the evidence measured a test-only preset (small, below the
// 128-bit security budget; provenance.preset.test_only), else "": its
// ranking is no deployment's.
std::string test_only_preset_warning(const nlohmann::json& document);

// Sets document["rows"], ["recommendation"] and ["analysis"] from a decision.
// Reads metadata.preset, metadata.device and metadata.measurement_orders.
void put_analysis(nlohmann::json& document, const Analysis& analysis,
                  const MeasurementGrid& grid, const DecisionConfig& config);

// What a rescore needs from an evidence document.
struct EvidenceInput {
  fhe::DeviceSpec device;
  std::vector<SampleSeries> series;
  std::vector<std::string> candidates;  // backends to rank: listed, minus correctness failures
  std::vector<std::string> operations;
  std::string weights_text;             // as recorded; empty = equal weights
  std::string policy = "documented";
  std::uint64_t bootstrap_seed = 0;
  int bootstrap_replicates = kDefaultBootstrapReplicates;
};

// Throws InvalidArgument naming the first missing or malformed field.
EvidenceInput read_evidence(const nlohmann::json& document);

}  // namespace fhelium
