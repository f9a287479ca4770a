// RAII device memory: DeviceBuffer<T> owns count elements of T allocated
// with cudaMalloc on the device current at construction, and copies to and
// from host vectors (synchronously). Move-only. Shared by the NTT plans and
// the CUDA evaluator.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"

namespace fhe::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `context` names the owner (backend, device) in allocation errors.
  explicit DeviceBuffer(std::size_t count, const std::string& context = {}) : count_(count) {
    if (count_ > 0) {
      void* pointer = nullptr;
      FHE_CUDA_CHECK(cudaMalloc(&pointer, count_ * sizeof(T)),
                     context + (context.empty() ? "" : ", ") + std::to_string(count_ * sizeof(T)) +
                         " bytes");
      data_ = static_cast<T*>(pointer);
    }
  }
  // Allocates and uploads `host`.
  static DeviceBuffer from_host(std::span<const T> host, const std::string& context = {}) {
    DeviceBuffer buffer(host.size(), context);
    buffer.upload(host);
    return buffer;
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

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
      FHE_CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), host.size() * sizeof(T),
                                     cudaMemcpyHostToDevice, stream));
    }
  }
  void download_async(std::span<T> host, cudaStream_t stream) const {
    check_size(host.size(), "download");
    if (!host.empty()) {
      FHE_CUDA_CHECK(cudaMemcpyAsync(host.data(), data_, host.size() * sizeof(T),
                                     cudaMemcpyDeviceToHost, stream));
    }
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    download(std::span<T>(host));
    return host;
  }

 private:
  void check_size(std::size_t elements, const char* what) const {
    if (elements > count_) {
      throw InvalidArgument(std::string(what) + " of " + std::to_string(elements) +
                            " elements with a device buffer of " + std::to_string(count_));
    }
  }
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);  // never throws from a destructor
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace fhe::cuda
