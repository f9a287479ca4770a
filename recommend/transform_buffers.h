// The kernel suite's words on its device: a pristine copy of the input and
// the buffer the transforms overwrite, plus the stream they run on. Keeping
// the pristine copy on the same device makes the untimed restore before
// each sample a device-local copy.
#pragma once

#include <cstdint>
#include <vector>

#include "fhe/core/device.h"
#include "fhe/ntt/backend.h"

namespace fhelium {

class TransformBuffers {
 public:
  TransformBuffers(const fhe::DeviceSpec& device, const std::vector<std::uint64_t>& input);
  ~TransformBuffers();
  TransformBuffers(const TransformBuffers&) = delete;
  TransformBuffers& operator=(const TransformBuffers&) = delete;

  // Host memory on the CPU, device memory on a GPU.
  std::uint64_t* work() { return work_; }
  fhe::ntt::StreamHandle stream() const { return {stream_}; }
  // work <- input; returns when the copy is complete.
  void restore();

 private:
  fhe::DeviceSpec device_;
  std::size_t words_ = 0;
  std::vector<std::uint64_t> host_pristine_, host_work_;
  std::uint64_t* pristine_ = nullptr;
  std::uint64_t* work_ = nullptr;
  void* stream_ = nullptr;  // cudaStream_t
};

}  // namespace fhelium
