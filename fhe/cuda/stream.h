// RAII CUDA streams and events, and a scoped current-device switch. Shared
// by the NTT plans, the benchmarks and the CUDA evaluator.
#pragma once

#include <utility>

#include <cuda_runtime_api.h>

#include "fhe/cuda/check.h"

namespace fhe::cuda {

// Makes `device` current for the scope and restores the previous device.
// Allowed during stream capture (it enqueues nothing).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    FHE_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) FHE_CUDA_CHECK(cudaSetDevice(device), "cuda:" + std::to_string(device));
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  ~DeviceGuard() {
    int current = previous_;
    cudaGetDevice(&current);
    if (current != previous_) cudaSetDevice(previous_);
  }

 private:
  int previous_ = 0;
};

// A non-blocking stream on the current device.
class Stream {
 public:
  Stream() { FHE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { FHE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event with timing enabled, for CUDA-event timing of device work.
class Event {
 public:
  Event() { FHE_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const { FHE_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { FHE_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const Event& start) const {
    float ms = 0;
    FHE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// An event for stream ordering only (no timing): what a fork or a join
// records, in eager runs and inside graph capture alike.
class OrderEvent {
 public:
  OrderEvent() { FHE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  OrderEvent(const OrderEvent&) = delete;
  OrderEvent& operator=(const OrderEvent&) = delete;
  ~OrderEvent() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  // `waiter` runs its later work after what `recorder` has enqueued so far.
  void order(cudaStream_t recorder, cudaStream_t waiter) const {
    FHE_CUDA_CHECK(cudaEventRecord(event_, recorder));
    FHE_CUDA_CHECK(cudaStreamWaitEvent(waiter, event_, 0));
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace fhe::cuda
