// Optional L2 flush between GPU samples: writing a device buffer twice the
// size of the L2 cache evicts what the previous sample or the input restore
// left there, so every sample starts from DRAM. A no-op on the CPU.
#pragma once

#include <cstddef>
#include <string>

#include "fhe/core/device.h"

namespace fhelium {

class L2Flusher {
 public:
  // `enabled` false (or a CPU device) makes flush() a no-op.
  L2Flusher(const fhe::DeviceSpec& device, bool enabled, std::size_t l2_cache_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  // Untimed; returns when the flush has finished on the device.
  void flush();
  // "on (N bytes)", "off", or "not applicable (cpu)", for the evidence.
  std::string describe() const;

 private:
  fhe::DeviceSpec device_;
  bool enabled_ = false;
  std::size_t buffer_bytes_ = 0;
  void* buffer_ = nullptr;
};

}  // namespace fhelium
