// Profile files (`fhelium benchmark profile ntt --json`) embedded in a
// report: their per-transform counters of the two leading backends shown in
// the describe-contrast section, with the profile's provenance checked
// against the evidence the ranking came from.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recommend/ntt_profile.h"
#include "recommend/report_inputs.h"

namespace fhelium {

struct LoadedProfile {
  std::filesystem::path path;
  std::string sha256;  // of the bytes as read; empty for a document made in memory
  nlohmann::json document;
  EvidenceContext context;  // GPU, driver, build and preset, read as for evidence
  int level = 0;
  std::vector<DirectionProfile> profiles;
};

// Throws InvalidArgument naming `path` when it is not a profile file.
LoadedProfile load_profile_document(const std::filesystem::path& path, nlohmann::json document);
std::vector<LoadedProfile> load_profile_files(const std::vector<std::filesystem::path>& paths);

struct ProfileContrast {
  bool available = false;  // rows to show
  std::string note;        // what the rows come from, or why there are none
  std::vector<std::string> warnings;  // describe figures, another level, provenance differences
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// Rows of `backends` (forward and inverse) from the first profile file of
// the evidence's GPU model and preset that holds each, preferring the
// evidence's level.
ProfileContrast profile_contrast(const std::vector<LoadedProfile>& profiles, const LoadedEvidence& evidence,
                                 const std::vector<std::string>& backends);

// The command that makes the profile a report of `evidence` can embed.
std::string profile_command_for(const LoadedEvidence& evidence, const std::vector<std::string>& backends);

}  // namespace fhelium
