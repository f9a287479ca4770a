// The timing harness shared by every suite: prepare each backend once, gate
// on correctness, then for each repetition (backend order rotated and
// recorded) and each operation run the warm-up and the timed samples,
// restoring the input (untimed) before each, optionally flushing L2, and
// probing the SM clock after each GPU sample. Every raw sample is kept.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fhe/core/device.h"
#include "recommend/sample_series.h"
#include "recommend/suite.h"

namespace fhelium {

struct HarnessOptions {
  int warmup = 3;
  int runs = 10;
  int repetitions = 3;
  bool l2_flush = false;
  fhe::DeviceSpec device;
  // Called with one short line per step; empty: silent.
  std::function<void(const std::string&)> progress;
};

struct HarnessResult {
  std::vector<CorrectnessRecord> correctness;   // one per backend, list order
  std::vector<std::string> ranked_backends;     // those that passed, list order
  std::vector<SampleSeries> series;             // ranked backends x operations x repetitions
  std::vector<std::vector<std::string>> measurement_orders;  // per repetition
  std::string timer;        // "cuda_events" or "steady_clock"
  std::string clock_probe;  // "nvml", why not, or "not applicable (cpu)"
  std::string l2_flush;     // as L2Flusher::describe()
  double max_sm_clock_mhz = 0.0;
};

// The order of repetition r: the list rotated left by r.
std::vector<std::string> rotated_order(const std::vector<std::string>& backends, int repetition);

// Throws InvalidArgument for warmup < 0, runs < 1 or repetitions < 1.
void validate_harness_counts(int warmup, int runs, int repetitions);

HarnessResult run_harness(Suite& suite, const std::vector<std::string>& backends,
                          const HarnessOptions& options);

}  // namespace fhelium
