// The provenance check of a report: which of the variables that must hold
// constant (GPU, driver, CUDA runtime, build, preset) differ between the
// evidence files, and the grouping of files into deployment contexts (one
// GPU and one preset) for the side-by-side and fleet views.
#pragma once

#include <string>
#include <vector>

#include "recommend/report_inputs.h"

namespace fhelium {

struct ProvenanceDifference {
  std::string field;                // e.g. "driver"
  std::vector<std::string> values;  // one per input file, same order
};

// Empty when every input agrees on every field.
std::vector<ProvenanceDifference> provenance_differences(const std::vector<LoadedEvidence>& inputs);

// Files of one GPU model and one preset, in scope order. Units of the same
// model (different UUIDs, e.g. two lent machines) share a deployment so their
// scopes stand side by side; the provenance check warns about the UUIDs.
struct DeploymentContext {
  std::string gpu_name, gpu_uuid, preset;  // gpu_uuid lists every unit seen
  std::vector<const LoadedEvidence*> files;
};

std::vector<DeploymentContext> group_contexts(const std::vector<LoadedEvidence>& inputs);

}  // namespace fhelium
