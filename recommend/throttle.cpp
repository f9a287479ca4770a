// Throttle flags from clock samples and NVML reasons.
#include "recommend/throttle.h"

#include <algorithm>

#include "recommend/nvml_probe.h"

namespace fhelium {

double flag_throttled_samples(std::span<SampleSeries> series, double clock_share) {
  double max_clock_mhz = 0.0;
  for (const SampleSeries& s : series)
    for (double clock : s.sm_clock_mhz) max_clock_mhz = std::max(max_clock_mhz, clock);
  for (SampleSeries& s : series) {
    if (s.sm_clock_mhz.empty()) continue;
    s.throttled.assign(s.sm_clock_mhz.size(), false);
    for (std::size_t i = 0; i < s.sm_clock_mhz.size(); ++i) {
      const bool slow_clock = s.sm_clock_mhz[i] < clock_share * max_clock_mhz;
      const bool slowdown_reason =
          i < s.throttle_reasons.size() && (s.throttle_reasons[i] & kThrottlingReasonMask) != 0;
      s.throttled[i] = slow_clock || slowdown_reason;
    }
  }
  return max_clock_mhz;
}

}  // namespace fhelium
