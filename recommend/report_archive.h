// The archive of a report (step 7 of the decision): copies of the evidence
// files and a manifest with the commands that produced them, their SHA-256
// hashes and provenance, beside the report.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recommend/report_inputs.h"

namespace fhelium {

// Names the copies get under DIR/evidence/: "NN-<file name>", numbered so
// that two inputs with one file name (two GPUs' kernel.json) both survive.
std::vector<std::string> archive_names(const std::vector<LoadedEvidence>& inputs);

nlohmann::json archive_manifest(const std::vector<LoadedEvidence>& inputs, const std::string& report_command,
                                const std::string& generated_utc);

// Writes DIR/evidence/* and DIR/manifest.json, each atomically.
void write_archive(const std::filesystem::path& dir, const std::vector<LoadedEvidence>& inputs,
                   const nlohmann::json& manifest);

}  // namespace fhelium
