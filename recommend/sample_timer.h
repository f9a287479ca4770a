// Times one sample: CUDA events recorded on the work's stream around the
// device work on a GPU (the host then waits on the stop event), the steady
// clock around the synchronous call on the CPU.
#pragma once

#include <chrono>
#include <string>

#include "fhe/core/device.h"
#include "fhe/ntt/backend.h"

namespace fhelium {

class SampleTimer {
 public:
  explicit SampleTimer(const fhe::DeviceSpec& device);
  ~SampleTimer();
  SampleTimer(const SampleTimer&) = delete;
  SampleTimer& operator=(const SampleTimer&) = delete;

  void start(fhe::ntt::StreamHandle stream = {});
  // Elapsed milliseconds since start(); on a GPU, waits for the stop event.
  double stop_ms(fhe::ntt::StreamHandle stream = {});
  // Waits for all work on the device (no-op on the CPU): for suites whose
  // library calls run on streams the suite does not own.
  void synchronize_device() const;
  // "cuda_events" or "steady_clock", for the evidence.
  static std::string method_for(const fhe::DeviceSpec& device);

 private:
  fhe::DeviceSpec device_;
  std::chrono::steady_clock::time_point host_start_;
  void* start_event_ = nullptr;  // cudaEvent_t
  void* stop_event_ = nullptr;
};

}  // namespace fhelium
