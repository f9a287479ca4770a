// A deployment policy file: the backend decided for each deployment key
// (GPU model, driver, build commit, preset), with SHA-256 hashes of the
// evidence it rests on, and the loader a deployment calls at start-up.
// Lookup refuses on any mismatch: a policy made on one machine, driver,
// build or preset never silently becomes another one's default.
//
// It lives in recommend/ (namespace fhelium), not fhe/: the library core
// links no JSON and has no notion of evidence or provenance; a deployment
// that uses policies links fhelium::recommend, which already has both.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/device.h"
#include "fhe/core/error.h"
#include "recommend/report_decision.h"

namespace fhelium {

inline constexpr const char* kPolicyKind = "fhelium.ntt-policy";
inline constexpr int kPolicySchemaVersion = 1;

// Thrown by NttPolicy::lookup; an InvalidArgument, so the CLI exits 2.
class PolicyMismatch : public fhe::InvalidArgument {
 public:
  using fhe::InvalidArgument::InvalidArgument;
};

struct PolicyKey {
  std::string gpu_model;   // GPU name, "cpu" on the host
  std::string driver;
  std::string git_commit;
  std::string preset;
  bool operator==(const PolicyKey&) const = default;
};

struct PolicyEntry {
  PolicyKey key;
  std::string backend;
  std::string apply;
  std::string confidence;
};

class NttPolicy {
 public:
  // Throws InvalidArgument when the file is missing, not JSON or not a policy.
  static NttPolicy load(const std::filesystem::path& path);
  static NttPolicy from_json(const nlohmann::json& document);

  // The entry whose key equals `running` exactly; otherwise throws
  // PolicyMismatch naming each field that differs from the nearest entry.
  const PolicyEntry& lookup(const PolicyKey& running) const;

  // The key of this process on `device` with `preset`, derived from the
  // same provenance fields the evidence records.
  static PolicyKey running_key(const std::string& preset, const fhe::DeviceSpec& device);

  const std::vector<PolicyEntry>& entries() const { return entries_; }

 private:
  std::vector<PolicyEntry> entries_;
};

PolicyKey policy_key(const EvidenceContext& context);

// The policy document for the decided contexts (decisions[i] belongs to contexts[i]).
nlohmann::json policy_json(const std::vector<DeploymentContext>& contexts,
                           const std::vector<DeploymentDecision>& decisions,
                           const std::string& generated_utc);

}  // namespace fhelium
