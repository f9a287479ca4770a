// Provenance comparison and grouping; the field list is the one place that
// says which context fields a report compares.
#include "recommend/report_provenance.h"

#include <algorithm>
#include <utility>

namespace fhelium {
namespace {

using Field = std::pair<const char*, std::string EvidenceContext::*>;
const Field kFields[] = {{"GPU name", &EvidenceContext::gpu_name},
                         {"GPU UUID", &EvidenceContext::gpu_uuid},
                         {"driver", &EvidenceContext::driver},
                         {"CUDA runtime", &EvidenceContext::cuda_runtime},
                         {"git commit", &EvidenceContext::git_commit},
                         {"git dirty", &EvidenceContext::git_dirty},
                         {"build flags", &EvidenceContext::build_flags},
                         {"preset", &EvidenceContext::preset},
                         {"preset primes hash", &EvidenceContext::primes_hash}};

}  // namespace

std::vector<ProvenanceDifference> provenance_differences(const std::vector<LoadedEvidence>& inputs) {
  std::vector<ProvenanceDifference> out;
  for (const auto& [name, member] : kFields) {
    ProvenanceDifference difference{name, {}};
    for (const auto& input : inputs) difference.values.push_back(input.context.*member);
    const bool all_same = std::all_of(difference.values.begin(), difference.values.end(),
                                      [&](const std::string& v) { return v == difference.values.front(); });
    if (!all_same) out.push_back(std::move(difference));
  }
  return out;
}

std::vector<DeploymentContext> group_contexts(const std::vector<LoadedEvidence>& inputs) {
  std::vector<DeploymentContext> out;
  for (const auto& input : inputs) {
    const auto& c = input.context;
    auto it = std::find_if(out.begin(), out.end(), [&](const DeploymentContext& d) {
      return d.gpu_name == c.gpu_name && d.preset == c.preset;
    });
    if (it == out.end()) {
      it = out.insert(out.end(), DeploymentContext{c.gpu_name, c.gpu_uuid, c.preset, {}});
    } else if (it->gpu_uuid.find(c.gpu_uuid) == std::string::npos) {
      it->gpu_uuid += ", " + c.gpu_uuid;
    }
    it->files.push_back(&input);
  }
  for (auto& context : out)
    std::stable_sort(context.files.begin(), context.files.end(),
                     [](const LoadedEvidence* a, const LoadedEvidence* b) {
                       return scope_order(a->suite) < scope_order(b->suite);
                     });
  return out;
}

}  // namespace fhelium
