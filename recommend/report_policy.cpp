// Policy emission, loading and the refusing lookup.
#include "recommend/report_policy.h"

#include <fstream>

#include "fhe/params/preset.h"
#include "recommend/provenance.h"

namespace fhelium {
namespace {

// Field name and member, in the order mismatches are reported.
using KeyField = std::pair<const char*, std::string PolicyKey::*>;
const KeyField kKeyFields[] = {{"GPU model", &PolicyKey::gpu_model},
                               {"driver", &PolicyKey::driver},
                               {"build (git commit)", &PolicyKey::git_commit},
                               {"preset", &PolicyKey::preset}};

nlohmann::json key_json(const PolicyKey& key) {
  return {{"gpu_model", key.gpu_model}, {"driver", key.driver}, {"git_commit", key.git_commit},
          {"preset", key.preset}};
}

std::string key_text(const PolicyKey& key) {
  std::string out;
  for (const auto& [name, member] : kKeyFields) out += (out.empty() ? "" : ", ") + std::string(name) + " '" + key.*member + "'";
  return out;
}

}  // namespace

PolicyKey policy_key(const EvidenceContext& context) {
  return {context.gpu_name, context.driver, context.git_commit, context.preset};
}

nlohmann::json policy_json(const std::vector<DeploymentContext>& contexts,
                           const std::vector<DeploymentDecision>& decisions,
                           const std::string& generated_utc) {
  nlohmann::json entries = nlohmann::json::array();
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const DeploymentDecision& decision = decisions[i];
    nlohmann::json evidence = nlohmann::json::array();
    bool consistent = true;
    const PolicyKey key = policy_key(decision.deciding->context);
    for (const LoadedEvidence* file : contexts[i].files) {
      consistent = consistent && policy_key(file->context) == key;
      evidence.push_back({{"file", file->path.filename().string()},
                          {"path", file->path.string()},
                          {"suite", file->label},
                          {"sha256", file->sha256}});
    }
    entries.push_back({{"key", key_json(key)},
                       {"gpu_uuid", contexts[i].gpu_uuid},
                       {"backend", decision.backend},
                       {"apply", decision.apply},
                       {"confidence", decision.confidence},
                       {"deciding_scope", decision.deciding_scope},
                       {"documented_recommendation", decision.documented_recommendation},
                       {"stable_fallback_kept", decision.fallback_kept},
                       // false: the files of this entry differ in driver or build; see the report.
                       {"evidence_keys_consistent", consistent},
                       {"evidence", evidence}});
  }
  return {{"kind", kPolicyKind},
          {"schema_version", kPolicySchemaVersion},
          {"generated_utc", generated_utc},
          {"scope", "one entry per GPU model, driver, build and preset; no entry is a global default"},
          {"entries", entries}};
}

NttPolicy NttPolicy::from_json(const nlohmann::json& document) {
  if (!document.is_object() || document.value("kind", "") != kPolicyKind)
    throw fhe::InvalidArgument(std::string("not an NTT policy (kind must be ") + kPolicyKind + ")");
  if (document.value("schema_version", 0) != kPolicySchemaVersion)
    throw fhe::InvalidArgument("unsupported NTT policy schema_version");
  NttPolicy policy;
  try {
    for (const auto& e : document.at("entries")) {
      const auto& k = e.at("key");
      policy.entries_.push_back({{k.at("gpu_model").get<std::string>(), k.at("driver").get<std::string>(),
                                  k.at("git_commit").get<std::string>(), k.at("preset").get<std::string>()},
                                 e.at("backend").get<std::string>(),
                                 e.at("apply").get<std::string>(),
                                 e.at("confidence").get<std::string>()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw fhe::InvalidArgument(std::string("malformed NTT policy entry: ") + e.what());
  }
  return policy;
}

NttPolicy NttPolicy::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw fhe::InvalidArgument("cannot read NTT policy " + path.string());
  try {
    return from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::parse_error& e) {
    throw fhe::InvalidArgument("NTT policy " + path.string() + " is not valid JSON: " + e.what());
  }
}

const PolicyEntry& NttPolicy::lookup(const PolicyKey& running) const {
  const PolicyEntry* nearest = nullptr;
  int nearest_matches = -1;
  for (const PolicyEntry& entry : entries_) {
    if (entry.key == running) return entry;
    int matches = 0;
    for (const auto& [name, member] : kKeyFields) matches += entry.key.*member == running.*member;
    if (matches > nearest_matches) nearest_matches = matches, nearest = &entry;
  }
  std::string message = "no NTT policy entry for this deployment (" + key_text(running) + ")";
  if (nearest) {
    message += "; the nearest entry differs in";
    for (const auto& [name, member] : kKeyFields)
      if (nearest->key.*member != running.*member)
        message += std::string(" ") + name + " (policy '" + nearest->key.*member + "', running '" +
                   running.*member + "')";
  } else {
    message += "; the policy has no entries";
  }
  throw PolicyMismatch(message + "; measure this deployment and emit a policy for it");
}

PolicyKey NttPolicy::running_key(const std::string& preset, const fhe::DeviceSpec& device) {
  // Wrap this process's provenance as an evidence document so that the key
  // comes from evidence_context, the derivation used for the files.
  const nlohmann::json document = {
      {"metadata", {{"device", device.str()}, {"preset", preset}}},
      {"provenance", collect_provenance(device, fhe::preset_by_name(preset), {})}};
  return policy_key(evidence_context(document));
}

}  // namespace fhelium
