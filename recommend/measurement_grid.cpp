// Building and validating the measurement grid.
#include "recommend/measurement_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "fhe/core/error.h"

namespace fhelium {

std::size_t SampleSeries::throttled_count() const {
  return static_cast<std::size_t>(std::count(throttled.begin(), throttled.end(), true));
}

std::size_t MeasurementGrid::min_runs() const {
  std::size_t runs = std::numeric_limits<std::size_t>::max();
  for (const auto& per_op : samples_ms)
    for (const auto& per_rep : per_op)
      for (const auto& samples : per_rep) runs = std::min(runs, samples.size());
  return samples_ms.empty() ? 0 : runs;
}

MeasurementGrid build_grid(std::span<const SampleSeries> series,
                           const std::vector<std::string>& backends,
                           const std::vector<std::string>& operations) {
  if (backends.empty()) throw fhe::InvalidArgument("no backend to rank");
  if (operations.empty()) throw fhe::InvalidArgument("no operation to rank");
  std::map<std::string, std::size_t> backend_index, op_index;
  for (std::size_t i = 0; i < backends.size(); ++i) {
    if (!backend_index.emplace(backends[i], i).second)
      throw fhe::InvalidArgument("backend '" + backends[i] + "' listed twice");
  }
  for (std::size_t i = 0; i < operations.size(); ++i) {
    if (!op_index.emplace(operations[i], i).second)
      throw fhe::InvalidArgument("operation '" + operations[i] + "' listed twice");
  }
  // Repetitions are the distinct indices seen for the candidates; they must be 0..R-1.
  std::set<int> repetition_ids;
  for (const SampleSeries& s : series) {
    if (backend_index.count(s.backend) && op_index.count(s.operation))
      repetition_ids.insert(s.repetition);
  }
  if (repetition_ids.empty()) throw fhe::InvalidArgument("no timed series for the candidates");
  const int repetitions = static_cast<int>(repetition_ids.size());
  if (*repetition_ids.begin() != 0 || *repetition_ids.rbegin() != repetitions - 1)
    throw fhe::InvalidArgument("repetition indices must be 0.." + std::to_string(repetitions - 1));

  MeasurementGrid grid;
  grid.backends = backends;
  grid.operations = operations;
  grid.repetitions = repetitions;
  grid.samples_ms.assign(backends.size(),
                         std::vector<std::vector<std::vector<double>>>(
                             operations.size(), std::vector<std::vector<double>>(repetitions)));
  grid.throttled.assign(backends.size(), std::vector<std::vector<std::size_t>>(
                                             operations.size(), std::vector<std::size_t>(repetitions, 0)));
  std::vector<std::vector<std::vector<bool>>> seen(
      backends.size(), std::vector<std::vector<bool>>(operations.size(), std::vector<bool>(repetitions)));
  for (const SampleSeries& s : series) {
    auto b = backend_index.find(s.backend);
    auto o = op_index.find(s.operation);
    if (b == backend_index.end() || o == op_index.end()) continue;
    const std::string cell = s.backend + " / " + s.operation + " / repetition " +
                             std::to_string(s.repetition);
    if (seen[b->second][o->second][s.repetition])
      throw fhe::InvalidArgument("evidence has two series for " + cell);
    seen[b->second][o->second][s.repetition] = true;
    if (s.samples_ms.empty()) throw fhe::InvalidArgument("evidence has no samples for " + cell);
    for (double t : s.samples_ms) {
      if (!std::isfinite(t) || t <= 0.0)
        throw fhe::InvalidArgument("evidence has a non-positive or non-finite sample for " + cell);
    }
    grid.samples_ms[b->second][o->second][s.repetition] = s.samples_ms;
    grid.throttled[b->second][o->second][s.repetition] = s.throttled_count();
  }
  for (std::size_t b = 0; b < backends.size(); ++b)
    for (std::size_t o = 0; o < operations.size(); ++o)
      for (int r = 0; r < repetitions; ++r)
        if (!seen[b][o][r])
          throw fhe::InvalidArgument("evidence lacks " + backends[b] + " / " + operations[o] +
                                     " / repetition " + std::to_string(r));
  return grid;
}

}  // namespace fhelium
