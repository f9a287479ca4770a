// Matching profiles to a deployment by GPU model and preset, like the
// describe contrast; the units may differ, which the provenance check says.
#include "recommend/report_profile.h"

#include <algorithm>

#include "fhe/core/error.h"
#include "recommend/ntt_profile_runner.h"
#include "recommend/report_provenance.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

int evidence_level(const LoadedEvidence& evidence) {
  return evidence.document.value("metadata", nlohmann::json::object()).value("level", 0);
}

const DirectionProfile* find_profile(const LoadedProfile& file, const std::string& backend,
                                     const std::string& direction) {
  for (const auto& p : file.profiles)
    if (p.backend == backend && p.direction == direction) return &p;
  return nullptr;
}

// Fields in which the profile's run differs from the evidence's, through
// the report's one list of compared fields.
std::vector<std::string> differences(const LoadedProfile& profile, const LoadedEvidence& evidence) {
  std::vector<LoadedEvidence> pair(2);
  pair[0].context = evidence.context;
  pair[1].context = profile.context;
  std::vector<std::string> out;
  for (const auto& d : provenance_differences(pair))
    out.push_back(d.field + " (evidence '" + d.values[0] + "', profile '" + d.values[1] + "')");
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace

LoadedProfile load_profile_document(const std::filesystem::path& path, nlohmann::json document) {
  LoadedProfile out;
  out.path = path;
  try {
    out.profiles = profiles_of(document);
    out.level = document.at("metadata").at("level").get<int>();
  } catch (const fhe::InvalidArgument& e) {
    throw fhe::InvalidArgument(path.string() + " is not a usable profile file: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw fhe::InvalidArgument(path.string() + " is not a usable profile file: " + e.what());
  }
  out.context = evidence_context(document);
  out.document = std::move(document);
  return out;
}

std::vector<LoadedProfile> load_profile_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<LoadedProfile> out;
  for (const auto& path : paths) {
    JsonFile file = read_json_file(path, "profile file");
    out.push_back(load_profile_document(path, std::move(file.document)));
    out.back().sha256 = file.sha256;
  }
  return out;
}

std::string profile_command_for(const LoadedEvidence& evidence, const std::vector<std::string>& backends) {
  std::string command = "fhelium benchmark profile ntt";
  for (const auto& b : backends) command += " --backend " + b;
  const auto& metadata = evidence.document.value("metadata", nlohmann::json::object());
  return command + " --preset " + evidence.context.preset + " --level " + std::to_string(evidence_level(evidence)) +
         " --device " + metadata.value("device", std::string("cuda:0")) + " --json profile.json";
}

ProfileContrast profile_contrast(const std::vector<LoadedProfile>& profiles, const LoadedEvidence& evidence,
                                 const std::vector<std::string>& backends) {
  ProfileContrast out;
  const int level = evidence_level(evidence);
  std::vector<const LoadedProfile*> candidates;
  for (const auto& file : profiles)
    if (file.context.gpu_name == evidence.context.gpu_name && file.context.preset == evidence.context.preset)
      candidates.push_back(&file);
  // The evidence's own level first; another level's rows have other row counts.
  std::stable_sort(candidates.begin(), candidates.end(), [&](const LoadedProfile* a, const LoadedProfile* b) {
    return (a->level == level) > (b->level == level);
  });

  std::vector<const LoadedProfile*> used;
  std::vector<std::string> missing;
  for (const auto& backend : backends) {
    const LoadedProfile* file = nullptr;
    for (const LoadedProfile* candidate : candidates)
      if (find_profile(*candidate, backend, "forward") && find_profile(*candidate, backend, "inverse")) {
        file = candidate;
        break;
      }
    if (!file) {
      missing.push_back(backend);
      continue;
    }
    for (const char* direction : {"forward", "inverse"})
      out.rows.push_back(profile_table_row(*find_profile(*file, backend, direction)));
    if (std::find(used.begin(), used.end(), file) == used.end()) used.push_back(file);
  }
  const std::string scope = evidence.context.gpu_name + ", preset " + evidence.context.preset;
  if (used.empty()) {
    out.note = "none of the " + std::to_string(profiles.size()) + " profile file(s) given holds " +
               join(backends, " and ") + " on " + scope + "; make one on that GPU with `" + profile_command_for(evidence, backends) + "`";
    out.rows.clear();
    return out;
  }
  out.available = true;
  out.header = profile_table_header();
  std::vector<std::string> sources;
  for (const LoadedProfile* file : used) {
    const auto& d = file->document;
    const std::string source = d.value("source", std::string("?"));
    const std::string version =
        d.contains("ncu") && d["ncu"].is_object() ? ", " + d["ncu"].value("version", std::string("ncu version unknown"))
                                                  : "";
    sources.push_back(file->path.filename().string() + " (" + source + version + ", " + file->context.gpu_name + " " +
                      file->context.gpu_uuid + ", level " + std::to_string(file->level) + ", SHA-256 " +
                      (file->sha256.empty() ? "(in memory)" : file->sha256.substr(0, 16)) + ")");
    if (source != "ncu")
      out.warnings.push_back(file->path.filename().string() + " holds NttPlan::describe figures, not measurements: " +
                             source);
    if (file->level != level)
      out.warnings.push_back(file->path.filename().string() + " was profiled at level " +
                             std::to_string(file->level) + ", the evidence was measured at level " +
                             std::to_string(level) + ": the row counts differ");
    if (const auto fields = differences(*file, evidence); !fields.empty())
      out.warnings.push_back(file->path.filename().string() + " and " + evidence.path.filename().string() +
                             " differ in " + join(fields, "; ") + ".");
  }
  out.note = "per transform, from " + join(sources, "; ");
  if (!missing.empty())
    out.note += "; not profiled: " + join(missing, ", ") + " (`" + profile_command_for(evidence, missing) + "`)";
  return out;
}

}  // namespace fhelium
