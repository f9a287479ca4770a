// The result patterns of a report: how the rankings of the scopes of one
// deployment context relate (the kernel/primitive disagreement table of the
// user's guide), each computed from the evidence with the check it suggests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recommend/report_provenance.h"

namespace fhelium {

enum class Pattern {
  composition_preserved,    // the lower scope's winner also wins the higher scope
  kernel_win_diluted,       // a strong lower-scope win becomes a near tie above
  forward_inverse_split,    // different fastest backends for forward and inverse NTT
  different_clear_winners,  // two scopes, each with a clear winner, disagree
  unstable_repetitions,     // the winner changed between repetitions or its CV is high
  correctness_failure,      // a backend failed the correctness gate
};

std::string_view pattern_name(Pattern pattern);
std::string_view pattern_meaning(Pattern pattern);     // what it most likely means
std::string_view pattern_next_check(Pattern pattern);  // what to look at next

struct PatternFinding {
  Pattern pattern;
  std::string scope;     // "kernel", "kernel -> ckks-primitive", ...
  std::string evidence;  // the numbers that put it here
};

struct PatternReport {
  std::vector<PatternFinding> findings;
  std::vector<std::string> notes;  // comparisons that could not be made, and why
};

PatternReport classify_patterns(const DeploymentContext& context);

}  // namespace fhelium
