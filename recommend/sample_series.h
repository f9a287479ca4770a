// The raw record of one backend x operation x repetition: every timed sample
// and, on a GPU, the SM clock and throttle state seen right after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fhelium {

struct SampleSeries {
  std::string backend;
  std::string operation;
  int repetition = 0;
  std::vector<double> samples_ms;
  // Per sample, filled only where a clock probe ran (GPU with NVML).
  std::vector<double> sm_clock_mhz;
  std::vector<std::uint64_t> throttle_reasons;  // NVML clock-event bitmask
  // Per sample, filled where throttling could be assessed.
  std::vector<bool> throttled;

  std::size_t throttled_count() const;
};

}  // namespace fhelium
