// Loading report inputs. The decision is recomputed with score_document
// rather than trusted from the file, so a report never shows rows that its
// raw samples do not give.
#include "recommend/report_inputs.h"


#include "fhe/core/error.h"
#include "recommend/file_bytes.h"
#include "recommend/document_scoring.h"
#include "recommend/report_sha256.h"

namespace fhelium {
namespace {

std::string text_at(const nlohmann::json& document, const nlohmann::json::json_pointer& pointer,
                    const std::string& absent = "absent") {
  if (!document.contains(pointer)) return absent;
  const nlohmann::json& value = document.at(pointer);
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string joined(const nlohmann::json& list, const std::string& separator) {
  std::string out;
  for (const auto& item : list)
    out += (out.empty() ? "" : separator) + (item.is_string() ? item.get<std::string>() : item.dump());
  return out;
}

// The application workload as its metadata records it, so that several
// application files (matvec diagonal and BSGS, key switching) get columns
// named by what they ran; the operation names when no workload is recorded.
std::string application_label(const nlohmann::json& metadata) {
  const nlohmann::json& workload = metadata.contains("workload") ? metadata["workload"] : nlohmann::json();
  // Any JSON type reads as text, so a hand-edited field cannot make a file unloadable.
  auto field = [&](const char* key) {
    using P = nlohmann::json::json_pointer;
    return workload.is_object() ? text_at(workload, P(std::string("/") + key), "?") : std::string("?");
  };
  const std::string graph = field("graph") == "on" ? ", CUDA graph" : "";
  if (field("name") == "matvec")
    return "application: matvec " + field("dim") + "x" + field("dim") + " " + field("method") + ", " +
           field("diagonal_policy") + " diagonals" + graph;
  if (field("name") == "keyswitch")
    return "application: keyswitch at levels " +
           (workload.contains("levels") && workload["levels"].is_array() ? joined(workload["levels"], ", ")
                                                                        : field("levels")) + ", rotation step " +
           field("rotation_step") + graph;
  const nlohmann::json& operations = metadata.contains("operations") ? metadata["operations"] : nlohmann::json();
  return "application (" + (operations.is_array() ? joined(operations, ",") : std::string()) + ")";
}

// Two inputs with one label (the same workload twice, e.g. on two GPUs)
// get their file names, then their positions, so columns stay distinct.
void make_labels_distinct(std::vector<LoadedEvidence>& inputs) {
  auto repeated = [&](std::size_t i) {
    for (std::size_t j = 0; j < inputs.size(); ++j)
      if (j != i && inputs[j].label == inputs[i].label) return true;
    return false;
  };
  for (const bool by_position : {false, true}) {
    std::vector<std::size_t> clashing;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (repeated(i)) clashing.push_back(i);
    for (std::size_t i : clashing)
      inputs[i].label += by_position ? " #" + std::to_string(i + 1) : " [" + inputs[i].path.filename().string() + "]";
  }
}

}  // namespace

EvidenceContext evidence_context(const nlohmann::json& document) {
  using P = nlohmann::json::json_pointer;
  EvidenceContext c;
  const std::string device = text_at(document, P("/metadata/device"), "cpu");
  c.gpu_name = text_at(document, P("/provenance/device/name"), device == "cpu" ? "cpu" : "absent");
  c.gpu_uuid = text_at(document, P("/provenance/device/uuid"));
  c.driver = text_at(document, P("/provenance/device/nvml/driver_version"),
                     text_at(document, P("/provenance/cuda/driver_cuda_version"), "none"));
  c.cuda_runtime = text_at(document, P("/provenance/cuda/runtime_version"));
  c.git_commit = text_at(document, P("/provenance/build/git_commit"));
  c.git_dirty = text_at(document, P("/provenance/build/git_dirty"));
  c.build_flags = text_at(document, P("/provenance/build/build_type")) + "; cxx" +
                  text_at(document, P("/provenance/build/cxx_flags")) + "; cuda" +
                  text_at(document, P("/provenance/build/cuda_flags")) + "; arch " +
                  text_at(document, P("/provenance/build/cuda_architectures"));
  c.preset = text_at(document, P("/metadata/preset"),
                     text_at(document, P("/provenance/preset/name")));
  c.primes_hash = text_at(document, P("/provenance/preset/primes_hash"));
  return c;
}

int scope_order(const std::string& suite) {
  if (suite == "kernel") return 0;
  if (suite == "ckks-primitive") return 1;
  if (suite == "application") return 2;
  return 3;
}

LoadedEvidence load_evidence_document(const std::filesystem::path& path, nlohmann::json document) {
  LoadedEvidence loaded;
  loaded.path = path;
  loaded.analysis = score_file_document(path.string(), document);
  const auto& metadata = document["metadata"];
  loaded.suite = metadata.value("suite", std::string("kernel"));
  loaded.label = loaded.suite;
  if (loaded.suite == "application") loaded.label = application_label(metadata);
  loaded.context = evidence_context(document);
  loaded.document = std::move(document);
  return loaded;
}

JsonFile read_json_file(const std::filesystem::path& path, const std::string& what) {
  const std::string bytes = read_file_bytes(path, what);
  JsonFile file;
  try {
    file.document = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    throw fhe::InvalidArgument(what + " " + path.string() + " is not valid JSON: " + e.what());
  }
  file.sha256 = sha256_hex(bytes);
  return file;
}

std::vector<LoadedEvidence> load_evidence_files(const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) throw fhe::InvalidArgument("no evidence file given");
  std::vector<LoadedEvidence> out;
  for (const auto& path : paths) {
    JsonFile file = read_json_file(path, "evidence file");
    if (!file.document.is_object())
      throw fhe::InvalidArgument("evidence file " + path.string() + " is not a JSON object");
    out.push_back(load_evidence_document(path, std::move(file.document)));
    out.back().sha256 = file.sha256;
  }
  make_labels_distinct(out);
  return out;
}

}  // namespace fhelium
