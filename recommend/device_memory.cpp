// Free memory of the host or of a CUDA device.
#include "recommend/device_memory.h"

#include <algorithm>
#include <fstream>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"

namespace fhelium {
namespace {

std::size_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::size_t kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return static_cast<std::size_t>(-1);  // unknown: do not refuse on a guess
}

}  // namespace

DeviceMemory available_device_memory(const fhe::DeviceSpec& device) {
  if (device.kind == fhe::DeviceKind::cpu) return {host_available_bytes(), "the host"};
  const fhe::GpuInventory inventory = fhe::query_gpus();
  const auto gpu = std::find_if(inventory.gpus.begin(), inventory.gpus.end(),
                                [&](const fhe::GpuInfo& g) { return g.index == device.index; });
  if (gpu == inventory.gpus.end()) throw fhe::DeviceError("device " + device.str() + " is not available");
  return {gpu->free_memory_bytes, device.str() + " (" + gpu->name + ")"};
}

}  // namespace fhelium
