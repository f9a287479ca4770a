// The interface every benchmark suite implements (kernel, ckks-primitive,
// and later application), so that they share one harness, one decision and
// one evidence format. A suite builds per-backend state once (plans,
// engines, keys), checks each backend's correctness before any timing, and
// times one execution of one operation at a time.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/error.h"

namespace fhelium {

// What one timed sample covers, recorded verbatim in the evidence.
struct TimedBoundary {
  std::vector<std::string> includes;
  std::vector<std::string> excludes;
  std::string synchronisation;
};

struct CorrectnessRecord {
  std::string backend;
  bool passed = false;
  std::string summary;            // one line
  nlohmann::json checks;          // suite-specific details
  nlohmann::json failing_input;   // null when passed: enough to reproduce the failure exactly
  std::string failing_input_file; // where the run saved it (empty when none)
};

class Suite {
 public:
  virtual ~Suite() = default;

  virtual std::string_view name() const = 0;
  virtual const std::vector<std::string>& operations() const = 0;
  virtual TimedBoundary timed_boundary() const = 0;

  // Untimed, once per backend, before any repetition: plans, engines, keys.
  virtual void prepare(const std::string& backend) = 0;
  // Untimed, after prepare: the gate a backend must pass to be timed.
  virtual CorrectnessRecord check_correctness(const std::string& backend) = 0;
  // Untimed, before every sample (warm-up included): put the operation's
  // input back so that each sample starts from the same state.
  virtual void restore_input(const std::string& backend, std::size_t operation) = 0;
  // One timed execution of operations()[operation]; milliseconds.
  virtual double time_once(const std::string& backend, std::size_t operation) = 0;
};

// The per-backend state a suite's prepare() stored in `states` (a map from
// backend name to a pointer); InvalidArgument when it was never prepared.
template <typename States>
auto& prepared_state(States& states, const std::string& backend, std::string_view suite) {
  const auto it = states.find(backend);
  if (it == states.end()) {
    throw fhe::InvalidArgument(std::string(suite) + " suite: backend " + backend + " was not prepared");
  }
  return *it->second;
}

}  // namespace fhelium
