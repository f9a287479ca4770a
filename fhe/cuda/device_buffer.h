// RAII device memory: DeviceBuffer<T> owns count elements of T allocated
// with cudaMalloc on the device current at construction (OwnedMemory), and
// copies to and from host vectors (synchronously). Move-only. Shared by
// the NTT plans and the CUDA evaluator.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"
#include "fhe/cuda/owned_memory.h"

namespace fhe::cuda {

template <typename T>
class DeviceBuffer : public OwnedMemory<T, DeviceMemory> {
 public:
  using OwnedMemory<T, DeviceMemory>::OwnedMemory;
  using OwnedMemory<T, DeviceMemory>::data;
  using OwnedMemory<T, DeviceMemory>::size;

  // Allocates and uploads `host`.
  static DeviceBuffer from_host(std::span<const T> host, const std::string& context = {}) {
    DeviceBuffer buffer(host.size(), context);
    buffer.upload(host);
    return buffer;
  }

  // Returns once the words are on the device, so work on any stream may read them.
  void upload(std::span<const T> host) {
    upload_async(host, nullptr);
    FHE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
  void download(std::span<T> host) const {
    download_async(host, nullptr);
    FHE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
  // Ordered on `stream` (pageable host memory is staged, so the host data may
  // be reused once the stream reaches the copy).
  void upload_async(std::span<const T> host, cudaStream_t stream) {
    check_size(host.size(), "upload");
    if (!host.empty()) {
      FHE_CUDA_CHECK(cudaMemcpyAsync(data(), host.data(), host.size() * sizeof(T),
                                     cudaMemcpyHostToDevice, stream));
    }
  }
  void download_async(std::span<T> host, cudaStream_t stream) const {
    check_size(host.size(), "download");
    if (!host.empty()) {
      FHE_CUDA_CHECK(cudaMemcpyAsync(host.data(), data(), host.size() * sizeof(T),
                                     cudaMemcpyDeviceToHost, stream));
    }
  }
  std::vector<T> download() const {
    std::vector<T> host(size());
    download(std::span<T>(host));
    return host;
  }

 private:
  void check_size(std::size_t elements, const char* what) const {
    if (elements > size()) {
      throw InvalidArgument(std::string(what) + " of " + std::to_string(elements) +
                            " elements with a device buffer of " + std::to_string(size()));
    }
  }
};

}  // namespace fhe::cuda
