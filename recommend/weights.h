// User weights per operation ("op=w,op=w"), normalised to sum to one.
// Operations the text does not name keep weight 1 before normalisation, so
// "--weights rotate_with_key=4" means "rotation counts four times as much".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fhelium {

struct OperationWeights {
  std::vector<double> normalised;  // one per operation, suite order
  bool user_given = false;         // false: the equal-weight geometric mean
};

// Empty text gives equal weights. Throws InvalidArgument for an unknown or
// repeated operation, a malformed pair, a negative or non-finite weight, or
// all weights zero.
OperationWeights parse_weights(std::string_view text, const std::vector<std::string>& operations);

}  // namespace fhelium
