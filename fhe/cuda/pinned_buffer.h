// RAII page-locked host memory (cudaMallocHost): the DMA engines copy it
// at the link's rate and cudaMemcpyAsync from it returns at once, where a
// copy from pageable memory is staged by the driver on the calling thread.
// Move-only. Pinning is costly to set up, so hold one for many copies.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"

namespace fhe::cuda {

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count, const std::string& context = {}) : count_(count) {
    if (count_ > 0) {
      void* pointer = nullptr;
      FHE_CUDA_CHECK(cudaMallocHost(&pointer, count_ * sizeof(T)),
                     context + (context.empty() ? "" : ", ") + std::to_string(count_ * sizeof(T)) +
                         " pinned host bytes");
      data_ = static_cast<T*>(pointer);
    }
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  // The owner must have waited for every copy that reads or writes it.
  ~PinnedBuffer() { release(); }

  std::span<T> span() { return {data_, count_}; }
  T* data() { return data_; }
  std::size_t size() const { return count_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFreeHost(data_);  // never throws from a destructor
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace fhe::cuda
