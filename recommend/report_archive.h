// The archive of a report (step 7 of the decision): copies of the evidence
// and profile files and a manifest with the commands that produced them,
// their SHA-256 hashes and provenance, beside the report.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recommend/report_inputs.h"
#include "recommend/report_profile.h"

namespace fhelium {

// One file a report read: an evidence file (its suite's label) or a profile
// file (label "profile"), with the hash of its bytes as read.
struct ArchivedInput {
  std::filesystem::path path;
  std::string sha256;
  std::string label;
  nlohmann::json provenance;
};

// The evidence files in the given order, then the profile files.
std::vector<ArchivedInput> archived_inputs(const std::vector<LoadedEvidence>& evidence,
                                           const std::vector<LoadedProfile>& profiles);

// Names the copies get under DIR/evidence/: "NN-<file name>", numbered so
// that two inputs with one file name (two GPUs' kernel.json) both survive.
std::vector<std::string> archive_names(const std::vector<ArchivedInput>& inputs);

nlohmann::json archive_manifest(const std::vector<ArchivedInput>& inputs, const std::string& report_command,
                                const std::string& generated_utc);

// Writes DIR/evidence/* and DIR/manifest.json, each atomically, then
// removes what an earlier archive in DIR left that this one does not list.
void write_archive(const std::filesystem::path& dir, const std::vector<ArchivedInput>& inputs,
                   const nlohmann::json& manifest);

// An earlier report's archive in DIR no longer describes the report there:
// removes DIR/evidence/NN-* copies not named in `keep` and, when `keep` is
// empty (a report without --archive), DIR/manifest.json and the evidence
// folder if nothing else is in it. Other files are left alone. Returns how
// many files it removed.
std::size_t remove_stale_archive(const std::filesystem::path& dir, const std::vector<std::string>& keep);

}  // namespace fhelium
