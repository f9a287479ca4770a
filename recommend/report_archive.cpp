// Archive copies are byte-for-byte (the hash in the manifest is the hash of
// the original and of the copy alike).
#include "recommend/report_archive.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "fhe/core/error.h"
#include "recommend/file_bytes.h"
#include "recommend/atomic_file.h"

namespace fhelium {

std::vector<ArchivedInput> archived_inputs(const std::vector<LoadedEvidence>& evidence,
                                           const std::vector<LoadedProfile>& profiles) {
  std::vector<ArchivedInput> out;
  const auto provenance = [](const nlohmann::json& document) {
    return document.value("provenance", nlohmann::json::object());
  };
  for (const auto& e : evidence) out.push_back({e.path, e.sha256, e.label, provenance(e.document)});
  for (const auto& p : profiles) out.push_back({p.path, p.sha256, "profile", provenance(p.document)});
  return out;
}

std::vector<std::string> archive_names(const std::vector<ArchivedInput>& inputs) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    char number[24];  // two digits at least: 01, 02, ..., 10
    std::snprintf(number, sizeof number, "%02zu-", i + 1);
    names.push_back(number + inputs[i].path.filename().string());
  }
  return names;
}

nlohmann::json archive_manifest(const std::vector<ArchivedInput>& inputs, const std::string& report_command,
                                const std::string& generated_utc) {
  const auto names = archive_names(inputs);
  nlohmann::json files = nlohmann::json::array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const nlohmann::json& p = inputs[i].provenance;
    files.push_back({{"archived_as", "evidence/" + names[i]},
                     {"source", inputs[i].path.string()},
                     {"suite", inputs[i].label},
                     {"sha256", inputs[i].sha256},
                     {"command", p.value("argv", nlohmann::json::array())},
                     {"provenance", p}});
  }
  return {{"kind", "fhelium.report-archive"},
          {"generated_utc", generated_utc},
          {"report_command", report_command},
          {"files", files}};
}

void write_archive(const std::filesystem::path& dir, const std::vector<ArchivedInput>& inputs,
                   const nlohmann::json& manifest) {
  const std::filesystem::path evidence_dir = dir / "evidence";
  std::error_code error;
  std::filesystem::create_directory(evidence_dir, error);
  if (error) throw fhe::InvalidArgument("cannot create " + evidence_dir.string() + ": " + error.message());
  const auto names = archive_names(inputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string bytes = read_file_bytes(inputs[i].path);
    write_file_atomically(evidence_dir / names[i], [&](std::ostream& out) { out << bytes; });
  }
  write_file_atomically(dir / "manifest.json", [&](std::ostream& out) { out << manifest.dump(2) << '\n'; });
  remove_stale_archive(dir, names);
}

namespace {

// "NN-..." with two or more digits: a name archive_names gives.
bool archive_copy_name(const std::string& name) {
  std::size_t digits = 0;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  return digits >= 2 && digits < name.size() && name[digits] == '-';
}

}  // namespace

std::size_t remove_stale_archive(const std::filesystem::path& dir, const std::vector<std::string>& keep) {
  std::size_t removed = 0;
  std::error_code error;
  const std::filesystem::path evidence_dir = dir / "evidence";
  if (keep.empty() && std::filesystem::is_regular_file(dir / "manifest.json", error)) {
    removed += std::filesystem::remove(dir / "manifest.json", error) ? 1 : 0;
  }
  if (!std::filesystem::is_directory(evidence_dir, error)) return removed;
  std::vector<std::filesystem::path> stale;
  for (const auto& entry : std::filesystem::directory_iterator(evidence_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(error) && archive_copy_name(name) &&
        std::find(keep.begin(), keep.end(), name) == keep.end()) {
      stale.push_back(entry.path());
    }
  }
  for (const auto& path : stale) removed += std::filesystem::remove(path, error) ? 1 : 0;
  if (keep.empty()) std::filesystem::remove(evidence_dir, error);  // only if nothing else lies there
  return removed;
}

}  // namespace fhelium
