// The L2 flush buffer.
#include "recommend/l2_flush.h"

#include "fhe/core/error.h"
#include "recommend/cuda_check.h"

namespace fhelium {

L2Flusher::L2Flusher(const fhe::DeviceSpec& device, bool enabled, std::size_t l2_cache_bytes)
    : device_(device), enabled_(enabled && device.kind == fhe::DeviceKind::cuda) {
  if (!enabled_) return;
#if FHELIUM_HAS_CUDA
  buffer_bytes_ = 2 * (l2_cache_bytes > 0 ? l2_cache_bytes : std::size_t{64} << 20);
  check_cuda(cudaSetDevice(device_.index), "cudaSetDevice", device_.index);
  check_cuda(cudaMalloc(&buffer_, buffer_bytes_), "cudaMalloc (L2 flush buffer)", device_.index);
#else
  (void)l2_cache_bytes;
#endif
}

L2Flusher::~L2Flusher() {
#if FHELIUM_HAS_CUDA
  if (buffer_) cudaFree(buffer_);
#endif
}

void L2Flusher::flush() {
  if (!enabled_) return;
#if FHELIUM_HAS_CUDA
  // The legacy default stream, then a device-wide wait: the flush must be
  // complete before the suite records its start event on its own stream.
  check_cuda(cudaMemsetAsync(buffer_, 0, buffer_bytes_, nullptr), "cudaMemsetAsync (L2 flush)",
             device_.index);
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (L2 flush)", device_.index);
#endif
}

std::string L2Flusher::describe() const {
  if (device_.kind != fhe::DeviceKind::cuda) return "not applicable (cpu)";
  return enabled_ ? "on (" + std::to_string(buffer_bytes_) + " bytes written per sample)" : "off";
}

}  // namespace fhelium
