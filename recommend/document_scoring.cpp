// Evidence document -> grid -> decision -> document.
#include "recommend/document_scoring.h"

#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "recommend/evidence.h"
#include "recommend/weights.h"

namespace fhelium {

Analysis score_document(nlohmann::json& document, const ScoringOverrides& overrides) {
  const EvidenceInput input = read_evidence(document);
  const std::string weights_text = overrides.weights_text.value_or(input.weights_text);
  const Policy policy = parse_policy(overrides.policy.value_or(input.policy));
  const OperationWeights weights = parse_weights(weights_text, input.operations);

  DecisionConfig config;
  config.weights = weights.normalised;
  config.user_weights = weights.user_given;
  config.policy = policy;
  config.fallback_backend = std::string(fhe::ntt::kStableFallback);
  config.bootstrap_replicates = input.bootstrap_replicates;
  config.bootstrap_seed = input.bootstrap_seed;

  const MeasurementGrid grid = build_grid(input.series, input.candidates, input.operations);
  Analysis analysis = analyse(grid, config);
  put_analysis(document, analysis, grid, config);
  document["analysis"]["scoring"]["weights_text"] = weights_text;
  document["analysis"]["scoring"]["policy"] = policy_name(policy);
  return analysis;
}

Analysis score_file_document(const std::string& path, nlohmann::json& document, const ScoringOverrides& overrides) {
  try {
    return score_document(document, overrides);
  } catch (const fhe::InvalidArgument& e) {
    throw fhe::InvalidArgument(path + " is not usable evidence: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw fhe::InvalidArgument(path + " is not usable evidence: " + e.what());
  }
}

}  // namespace fhelium
