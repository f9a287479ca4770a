// One recommendation run end to end: provenance and activity before, the
// harness, activity after, the evidence document, the decision, and the
// atomic writes (failing inputs beside the output, then the output).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recommend/recommend_request.h"
#include "recommend/suite.h"

namespace fhelium {

// The suite a plan names, built for its preset, device, level and seed.
// Throws InvalidArgument when the suite cannot run in this build.
std::unique_ptr<Suite> make_suite(const RecommendPlan& plan);

// Runs `suite` (built for `plan`) and writes the evidence to plan.output.
// Returns the document written; it has no "rows" when no backend passed
// the correctness gate.
nlohmann::json run_recommendation(const RecommendPlan& plan, Suite& suite,
                                  const std::vector<std::string>& argv,
                                  const std::function<void(const std::string&)>& progress = {});

}  // namespace fhelium
