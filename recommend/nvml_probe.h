// NVIDIA Management Library probes (SM clock, throttle reasons, power limit,
// utilisation, processes), loaded with dlopen("libnvidia-ml.so.1") at run
// time so that NVML is never a build dependency. When the library or the
// device is missing, the probe reports why and every query comes back empty.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fhelium {

struct ClockSample {
  double sm_clock_mhz = 0.0;
  std::optional<std::uint64_t> throttle_reasons;  // NVML clock-event bitmask
};

// NVML clock-event reasons that mean the GPU was slowed down (power cap,
// hardware slowdown, software/hardware thermal, power brake); idle,
// application-clock and sync-boost bits are not throttling.
inline constexpr std::uint64_t kThrottlingReasonMask = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

class NvmlProbe {
 public:
  // `gpu_uuid` as CUDA reports it ("GPU-xxxxxxxx-..."), so that the CUDA
  // ordinal and the NVML device agree even when their orders differ.
  explicit NvmlProbe(const std::string& gpu_uuid);
  ~NvmlProbe();
  NvmlProbe(const NvmlProbe&) = delete;
  NvmlProbe& operator=(const NvmlProbe&) = delete;

  bool available() const { return device_ != nullptr; }
  // "nvml" when available, else why not (recorded in the evidence).
  const std::string& status() const { return status_; }

  std::optional<ClockSample> sample() const;
  // Clocks (current, max, application), power (limit, enforced, draw),
  // temperature, driver version; fields NVML cannot give are left out.
  nlohmann::json device_facts() const;
  // Utilisation, memory in use and the compute processes on the device;
  // `own_pid` is marked so that readers can tell competing work from ours.
  nlohmann::json activity(long own_pid) const;

 private:
  void* device_ = nullptr;  // nvmlDevice_t
  std::string status_;
};

}  // namespace fhelium
