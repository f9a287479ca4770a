// What CUDA devices this process can see, for `fhelium info`, device checks
// and evidence provenance. Works (and reports none) in builds without CUDA.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fhe/core/device.h"

namespace fhe {

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::size_t total_memory_bytes = 0;
  std::size_t free_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  std::size_t persisting_l2_max_bytes = 0;  // the most L2 a process may set aside for persisting accesses
  std::size_t shared_memory_per_block_optin = 0;
};

struct GpuInventory {
  std::vector<GpuInfo> gpus;
  int runtime_version = 0;  // CUDA runtime, e.g. 13000; 0 without CUDA
  int driver_version = 0;   // highest CUDA version the driver supports; 0 when unknown
  std::string status;       // why the list is empty, when it is
};

GpuInventory query_gpus();

// Throws DeviceError naming the device when it cannot be used: no CUDA in
// this build, no driver, or an ordinal past the devices present.
void require_device(const DeviceSpec& device);

}  // namespace fhe
