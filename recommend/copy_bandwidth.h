// The device's copy bandwidth, the peak a profile's achieved DRAM bandwidth
// is set against: a device-to-device cudaMemcpy of a 1 GiB buffer timed
// with CUDA events. A copy reads and writes every byte, so the bandwidth
// counts both (2 x buffer bytes per copy), like ncu's DRAM read + write bytes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/device.h"

namespace fhelium {

struct CopyBandwidth {
  std::size_t buffer_bytes = 0;   // bytes copied per sample
  std::vector<double> samples_ms; // after one untimed warm-up copy
  double peak_gb_per_s = 0;       // 2 x buffer_bytes / fastest sample
};

// Throws DeviceError without CUDA, on a CPU device or when the two buffers
// cannot be allocated.
CopyBandwidth measure_copy_bandwidth(const fhe::DeviceSpec& device, std::size_t buffer_bytes = std::size_t{1} << 30,
                                     int samples = 5);

// With the method spelled out, for the profile file.
nlohmann::json to_json(const CopyBandwidth& bandwidth);

}  // namespace fhelium
