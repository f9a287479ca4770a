// The evidence files a deployment report reads: each parsed, re-scored with
// the one scoring path (score_document) so that a file whose raw samples do
// not support a decision is refused, and reduced to the context that decides
// whether two files may be compared (GPU, driver, build, preset).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recommend/decision.h"

namespace fhelium {

// What must hold constant for two evidence files to be compared directly.
// Absent fields read "absent" so that a hand-written file still compares.
struct EvidenceContext {
  std::string gpu_name;    // provenance.device.name, or "cpu"
  std::string gpu_uuid;
  std::string driver;      // NVML driver version, else the CUDA driver version, else "none"
  std::string cuda_runtime;
  std::string git_commit;
  std::string git_dirty;
  std::string build_flags;  // build type, C++ and CUDA flags, CUDA architectures
  std::string preset;
  std::string primes_hash;
};

struct LoadedEvidence {
  std::filesystem::path path;
  std::string sha256;  // of the file's bytes as read; empty for a document made in memory
  std::string suite;  // kernel, ckks-primitive or application
  std::string label;  // the suite; application files: their workload ("application: matvec 128x128 bsgs, ...")
  nlohmann::json document;  // as read (rows and recommendation re-scored)
  Analysis analysis;
  EvidenceContext context;
};

EvidenceContext evidence_context(const nlohmann::json& document);

// Scores a parsed document (a copy is kept) and fills the context.
// Throws InvalidArgument naming `path` when it is not scorable evidence.
LoadedEvidence load_evidence_document(const std::filesystem::path& path, nlohmann::json document);

// Reads and validates every file; throws InvalidArgument on the first bad one.
// Files whose labels coincide get their file name (then position) appended.
std::vector<LoadedEvidence> load_evidence_files(const std::vector<std::filesystem::path>& paths);

// A JSON file as read: the parsed document and the SHA-256 of its bytes
// (hashed as read, so the hash names exactly what was parsed). `what`
// names the file in errors ("evidence file", "profile file").
struct JsonFile {
  nlohmann::json document;
  std::string sha256;
};
JsonFile read_json_file(const std::filesystem::path& path, const std::string& what);

// Scope order of the report: kernel 0, ckks-primitive 1, application 2, other 3.
int scope_order(const std::string& suite);

}  // namespace fhelium
