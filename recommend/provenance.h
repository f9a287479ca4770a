// Provenance of a run (SPEC section 8): device, drivers, build, host, time,
// command line, preset, and the competing activity on the device, so that a
// reader can tell whether the variables the comparison needs held constant.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/device.h"
#include "fhe/params/preset.h"

namespace fhelium {

// Everything but the activity snapshots.
nlohmann::json collect_provenance(const fhe::DeviceSpec& device, const fhe::Preset& preset,
                                  const std::vector<std::string>& argv);

// A snapshot of competing activity: on a GPU, NVML utilisation, memory in
// use and compute processes (ours marked); everywhere, the load average.
nlohmann::json activity_snapshot(const fhe::DeviceSpec& device);

// Current UTC time, ISO 8601 with a trailing Z.
std::string utc_now_iso8601();

}  // namespace fhelium
