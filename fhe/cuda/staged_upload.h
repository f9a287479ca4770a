// Setup uploads of data the host first forms (packs, or copies out of its
// own containers), many in a row: the keys, a matvec's diagonals. Each is
// formed in one of two pinned staging buffers and copied on the uploader's
// stream while the next is formed in the other. A copy from pageable
// memory is staged by the driver on the calling thread (measured 0.6 to 11
// GB/s on the H200 machine); from pinned memory the DMA engines copy at the
// link's rate, behind the forming. Shared by the CUDA evaluator and the
// CUDA matvec.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"
#include "fhe/cuda/pinned_buffer.h"
#include "fhe/cuda/stream.h"

namespace fhe::cuda {

// Its stream is on the device current at construction; upload only into
// that device's memory.
class StagedUploader {
 public:
  StagedUploader() = default;
  StagedUploader(const StagedUploader&) = delete;
  StagedUploader& operator=(const StagedUploader&) = delete;
  // The staging buffers must outlive the copies that read them (also when
  // an upload threw midway).
  ~StagedUploader() { cudaStreamSynchronize(stream_.get()); }

  // form(std::span<std::uint8_t>) writes the `bytes` bytes to copy into
  // `device`. Returns once they are formed; the copy may still run.
  template <typename Form>
  void upload(void* device, std::size_t bytes, Form&& form) {
    Slot& slot = slots_[next_++ % slots_.size()];
    if (slot.used) slot.copied.synchronize();
    // Pinned on first use and grown on demand: one upload, one buffer.
    if (slot.staging.size() < bytes) slot.staging = PinnedBuffer<std::uint8_t>(bytes, "upload staging");
    form(slot.staging.span().first(bytes));
    FHE_CUDA_CHECK(cudaMemcpyAsync(device, slot.staging.data(), bytes, cudaMemcpyHostToDevice, stream_.get()));
    slot.copied.record(stream_.get());
    slot.used = true;
  }
  // Every upload is on the device, for work on any stream.
  void finish() const { stream_.synchronize(); }

 private:
  struct Slot {
    PinnedBuffer<std::uint8_t> staging;
    Event copied;  // the last copy from `staging`
    bool used = false;
  };
  Stream stream_;
  std::array<Slot, 2> slots_;
  std::size_t next_ = 0;
};

}  // namespace fhe::cuda
