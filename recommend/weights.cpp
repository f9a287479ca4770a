// Parsing and normalising operation weights.
#include "recommend/weights.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "fhe/core/error.h"

namespace fhelium {
namespace {

std::string known_operations(const std::vector<std::string>& operations) {
  std::string text;
  for (const auto& op : operations) text += (text.empty() ? "" : ", ") + op;
  return text;
}

}  // namespace

OperationWeights parse_weights(std::string_view text, const std::vector<std::string>& operations) {
  OperationWeights weights;
  std::vector<double> raw(operations.size(), 1.0);
  if (!text.empty()) {
    weights.user_given = true;
    std::set<std::string> named;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      const std::string pair(text.substr(start, comma - start));
      start = comma + 1;
      const std::size_t equals = pair.rfind('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == pair.size())
        throw fhe::InvalidArgument("malformed weight '" + pair + "' (expected op=weight)");
      const std::string op = pair.substr(0, equals);
      const std::string number = pair.substr(equals + 1);
      std::size_t index = operations.size();
      for (std::size_t i = 0; i < operations.size(); ++i)
        if (operations[i] == op) index = i;
      if (index == operations.size())
        throw fhe::InvalidArgument("weight for unknown operation '" + op +
                                   "' (operations: " + known_operations(operations) + ")");
      if (!named.insert(op).second)
        throw fhe::InvalidArgument("operation '" + op + "' is weighted twice");
      char* end = nullptr;
      const double value = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size() || !std::isfinite(value) || value < 0.0)
        throw fhe::InvalidArgument("weight of '" + op + "' must be a finite number >= 0, got '" +
                                   number + "'");
      raw[index] = value;
    }
  }
  // Scaled by the largest first, so that weights near the double's range
  // (1e308 each) cannot overflow the sum.
  const double largest = *std::max_element(raw.begin(), raw.end());
  if (!(largest > 0.0)) throw fhe::InvalidArgument("operation weights must not all be zero");
  double sum = 0.0;
  for (double w : raw) sum += w / largest;
  for (double w : raw) weights.normalised.push_back(w / largest / sum);
  return weights;
}

}  // namespace fhelium
