// CUDA device inventory through the runtime API (plain C++; no kernels).
#include "fhe/core/device_info.h"

#include <cstdio>

#include "fhe/core/error.h"

#if FHELIUM_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace fhe {

GpuInventory query_gpus() {
  GpuInventory inventory;
#if FHELIUM_HAS_CUDA
  cudaRuntimeGetVersion(&inventory.runtime_version);
  cudaDriverGetVersion(&inventory.driver_version);
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    inventory.status = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error for later callers
    return inventory;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    GpuInfo gpu;
    gpu.index = i;
    gpu.name = prop.name;
    char uuid[64];
    const unsigned char* b = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
    std::snprintf(uuid, sizeof uuid,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    gpu.uuid = uuid;
    gpu.compute_major = prop.major;
    gpu.compute_minor = prop.minor;
    gpu.sm_count = prop.multiProcessorCount;
    gpu.total_memory_bytes = prop.totalGlobalMem;
    gpu.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    gpu.persisting_l2_max_bytes = static_cast<std::size_t>(prop.persistingL2CacheMaxSize);
    gpu.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    int previous = 0;
    cudaGetDevice(&previous);
    if (cudaSetDevice(i) == cudaSuccess) {
      std::size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) gpu.free_memory_bytes = free_bytes;
      cudaSetDevice(previous);
    }
    inventory.gpus.push_back(gpu);
  }
  if (count == 0) inventory.status = "no CUDA device present";
#else
  inventory.status = "this build has no CUDA support";
#endif
  return inventory;
}

void require_device(const DeviceSpec& device) {
  if (device.kind == DeviceKind::cpu) return;
  GpuInventory inventory = query_gpus();
  if (device.index >= static_cast<int>(inventory.gpus.size())) {
    std::string why = inventory.gpus.empty()
                          ? inventory.status
                          : std::to_string(inventory.gpus.size()) + " CUDA device(s) present";
    throw DeviceError("device " + device.str() + " is not available (" + why + ")");
  }
}

}  // namespace fhe
