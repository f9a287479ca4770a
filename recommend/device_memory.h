// Memory a device can still give, read before a workload is built so that a
// run it cannot hold is refused up front (SPEC section 7). The CPU "device"
// is checked like a GPU, against the host's MemAvailable.
#pragma once

#include <cstddef>
#include <string>

#include "fhe/core/device.h"

namespace fhelium {

struct DeviceMemory {
  std::size_t available_bytes = 0;
  std::string description;  // "the host" or "cuda:0 (NVIDIA H200)", for messages
};

// CPU: MemAvailable from /proc/meminfo (unlimited when unreadable). CUDA:
// the device's free memory; throws DeviceError when it is not present.
DeviceMemory available_device_memory(const fhe::DeviceSpec& device);

}  // namespace fhelium
