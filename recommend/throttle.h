// Flags throttled GPU samples once a run is complete: a sample is throttled
// when its SM clock is below a share of the run's highest observed SM clock
// or NVML reported a slowdown reason right after it.
#pragma once

#include <span>

#include "recommend/sample_series.h"

namespace fhelium {

inline constexpr double kThrottleClockShare = 0.90;

// Fills `throttled` of every series that has clock samples; returns the
// run's highest SM clock in MHz (0 when no series had any).
double flag_throttled_samples(std::span<SampleSeries> series,
                              double clock_share = kThrottleClockShare);

}  // namespace fhelium
