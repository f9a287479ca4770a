// RAII page-locked host memory (cudaMallocHost): the DMA engines copy it
// at the link's rate and cudaMemcpyAsync from it returns at once, where a
// copy from pageable memory is staged by the driver on the calling thread.
// Move-only. Pinning is costly to set up, so hold one for many copies; the
// owner must have waited for every copy that reads or writes it before it
// is freed.
#pragma once

#include <cstddef>
#include <span>

#include "fhe/cuda/owned_memory.h"

namespace fhe::cuda {

template <typename T>
class PinnedBuffer : public OwnedMemory<T, PinnedHostMemory> {
 public:
  using OwnedMemory<T, PinnedHostMemory>::OwnedMemory;

  std::span<T> span() { return {this->data(), this->size()}; }
};

}  // namespace fhe::cuda
