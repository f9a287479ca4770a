// CUDA-event and steady-clock sample timing.
#include "recommend/sample_timer.h"

#include "fhe/core/error.h"
#include "recommend/cuda_check.h"

namespace fhelium {

SampleTimer::SampleTimer(const fhe::DeviceSpec& device) : device_(device) {
  if (device_.kind != fhe::DeviceKind::cuda) return;
#if FHELIUM_HAS_CUDA
  check_cuda(cudaSetDevice(device_.index), "cudaSetDevice", device_.index);
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate", device_.index);
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate", device_.index);
  start_event_ = start;
  stop_event_ = stop;
#else
  throw fhe::DeviceError("device " + device_.str() + " requested but this build has no CUDA support");
#endif
}

SampleTimer::~SampleTimer() {
#if FHELIUM_HAS_CUDA
  if (start_event_) cudaEventDestroy(static_cast<cudaEvent_t>(start_event_));
  if (stop_event_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_event_));
#endif
}

void SampleTimer::start(fhe::ntt::StreamHandle stream) {
#if FHELIUM_HAS_CUDA
  if (device_.kind == fhe::DeviceKind::cuda) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(start_event_),
                               static_cast<cudaStream_t>(stream.native)),
               "cudaEventRecord", device_.index);
    return;
  }
#endif
  (void)stream;
  host_start_ = std::chrono::steady_clock::now();
}

double SampleTimer::stop_ms(fhe::ntt::StreamHandle stream) {
#if FHELIUM_HAS_CUDA
  if (device_.kind == fhe::DeviceKind::cuda) {
    auto stop = static_cast<cudaEvent_t>(stop_event_);
    check_cuda(cudaEventRecord(stop, static_cast<cudaStream_t>(stream.native)), "cudaEventRecord",
               device_.index);
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize", device_.index);
    float elapsed_ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&elapsed_ms, static_cast<cudaEvent_t>(start_event_), stop),
               "cudaEventElapsedTime", device_.index);
    return elapsed_ms;
  }
#endif
  (void)stream;
  const auto elapsed = std::chrono::steady_clock::now() - host_start_;
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

void SampleTimer::synchronize_device() const {
#if FHELIUM_HAS_CUDA
  if (device_.kind == fhe::DeviceKind::cuda)
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", device_.index);
#endif
}

std::string SampleTimer::method_for(const fhe::DeviceSpec& device) {
  return device.kind == fhe::DeviceKind::cuda ? "cuda_events" : "steady_clock";
}

}  // namespace fhelium
