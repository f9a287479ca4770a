// The seven-step deployment decision of the user's guide, walked over the
// evidence of one deployment context: what each step concluded, what it
// lacked, and the exact backend, C++ line and confidence that result.
// The suites' own documented recommendations are shown unchanged; the walk
// only adds the guide's step 4 (keep the stable fallback when the deciding
// scope's repetitions disagree), visibly.
#pragma once

#include <string>
#include <vector>

#include "recommend/report_provenance.h"

namespace fhelium {

struct DecisionStep {
  int number = 0;
  std::string title;
  std::string conclusion;
  bool incomplete = false;  // the evidence this step needs is missing
};

struct DeploymentDecision {
  std::vector<DecisionStep> steps;  // 1..7
  std::string backend;
  std::string apply;       // the C++ line
  std::string confidence;  // low, medium or high
  std::string deciding_scope;              // label(s) of the highest scope present
  std::string documented_recommendation;   // that scope's own recommendation
  bool fallback_kept = false;              // step 4 replaced the documented choice
  const LoadedEvidence* deciding = nullptr;  // first file of the deciding scope
  std::vector<std::string> leading;          // two best backends of the deciding scope
};

// `archived`: whether this report archives its evidence (step 7).
DeploymentDecision walk_decision(const DeploymentContext& context, bool archived);

}  // namespace fhelium
