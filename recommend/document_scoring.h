// Scores an evidence document from its evidence[] alone and writes the
// ranked rows, the recommendation and the analysis back into it: the one
// path shared by a fresh run and `fhelium benchmark rescore`.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "recommend/decision.h"

namespace fhelium {

struct ScoringOverrides {
  std::optional<std::string> weights_text;  // else the document's (else equal weights)
  std::optional<std::string> policy;        // else the document's (else documented)
};

// Throws InvalidArgument when the document is not valid evidence or an
// override does not fit it (unknown operation in the weights, bad policy).
Analysis score_document(nlohmann::json& document, const ScoringOverrides& overrides = {});
// The same for a document read from `path`: any error (also a field of the
// wrong JSON type) becomes "<path> is not usable evidence: ...".
Analysis score_file_document(const std::string& path, nlohmann::json& document,
                             const ScoringOverrides& overrides = {});

}  // namespace fhelium
