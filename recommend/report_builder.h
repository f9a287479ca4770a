// Builds a deployment report from loaded evidence: the analysis model
// (contexts, patterns, decision walks, provenance differences) and the
// report document made from it. No I/O beyond describing plans.
#pragma once

#include <string>
#include <vector>

#include "recommend/report_decision.h"
#include "recommend/report_document.h"
#include "recommend/report_patterns.h"
#include "recommend/report_profile.h"
#include "recommend/report_provenance.h"

namespace fhelium {

struct ReportModel {
  const std::vector<LoadedEvidence>* inputs = nullptr;
  std::vector<DeploymentContext> contexts;
  std::vector<DeploymentDecision> decisions;  // one per context
  std::vector<PatternReport> patterns;        // one per context
  std::vector<ProvenanceDifference> differences;
};

// The model points into `inputs`, which must outlive it (a temporary is refused).
ReportModel build_model(const std::vector<LoadedEvidence>& inputs, bool archived);
ReportModel build_model(std::vector<LoadedEvidence>&& inputs, bool archived) = delete;

struct ReportOptions {
  std::string command;        // the report's own command line
  std::string generated_utc;
  bool describe = true;       // try the describe contrast
  std::vector<LoadedProfile> profiles;  // `--profile` files: measured counters beside the describe contrast
};

ReportDocument build_report(const ReportModel& model, const ReportOptions& options);

}  // namespace fhelium
