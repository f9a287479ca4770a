// Move-only ownership of `count` elements of T from one CUDA allocator:
// the base of DeviceBuffer (cudaMalloc, device memory) and PinnedBuffer
// (cudaMallocHost, page-locked host memory).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"

namespace fhe::cuda {

struct DeviceMemory {
  static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMalloc(pointer, bytes); }
  static void release(void* pointer) { cudaFree(pointer); }
  static constexpr const char* kUnit = " bytes";
};

struct PinnedHostMemory {
  static cudaError_t allocate(void** pointer, std::size_t bytes) { return cudaMallocHost(pointer, bytes); }
  static void release(void* pointer) { cudaFreeHost(pointer); }
  static constexpr const char* kUnit = " pinned host bytes";
};

template <typename T, typename Memory>
class OwnedMemory {
 public:
  OwnedMemory() = default;
  // `context` names the owner (backend, device) in allocation errors.
  explicit OwnedMemory(std::size_t count, const std::string& context = {}) : count_(count) {
    if (count_ > 0) {
      void* pointer = nullptr;
      FHE_CUDA_CHECK(Memory::allocate(&pointer, count_ * sizeof(T)),
                     context + (context.empty() ? "" : ", ") + std::to_string(count_ * sizeof(T)) + Memory::kUnit);
      data_ = static_cast<T*>(pointer);
    }
  }
  OwnedMemory(const OwnedMemory&) = delete;
  OwnedMemory& operator=(const OwnedMemory&) = delete;
  OwnedMemory(OwnedMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  OwnedMemory& operator=(OwnedMemory&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~OwnedMemory() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_ != nullptr) Memory::release(data_);  // never throws from a destructor
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace fhe::cuda
