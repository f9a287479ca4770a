// The human-readable summary of an evidence document: the ranked table,
// correctness failures and the recommendation with its reasons. Printed
// from the JSON so that a fresh run and a rescore print alike.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace fhelium {

void print_ranked_table(std::ostream& out, const nlohmann::json& document);

}  // namespace fhelium
