// Checking CUDA runtime calls: every failure becomes fhe::DeviceError with
// the call, where it happened and the caller's context (backend, device,
// rows), so the command line can print it as one line. Shared by the NTT
// plans and the CUDA evaluator.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "fhe/core/error.h"

namespace fhe::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line, const std::string& context) {
  std::string message = std::string("CUDA error ") + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ") in " + call;
  if (!context.empty()) message += " [" + context + "]";
  message += " at " + std::string(file) + ":" + std::to_string(line);
  // Clears a non-sticky error (an allocation failure) that the runtime
  // would otherwise report again at the next launch check, as the next
  // kernel's fault, when the caller catches this one and carries on.
  cudaGetLastError();
  throw DeviceError(message);
}

inline void check(cudaError_t status, const char* call, const char* file, int line,
                  const std::string& context = {}) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line, context);
}

// Reads (and clears) the error of the last kernel launch; launches are
// asynchronous, so this catches bad configurations, not faults in the kernel.
inline void check_launch(const char* kernel, const char* file, int line,
                         const std::string& context = {}) {
  check(cudaGetLastError(), kernel, file, line, context);
}

}  // namespace fhe::cuda

// FHE_CUDA_CHECK(cudaMalloc(...)) or FHE_CUDA_CHECK(call, context_string).
#define FHE_CUDA_CHECK(call, ...) \
  ::fhe::cuda::check((call), #call, __FILE__, __LINE__ __VA_OPT__(, ) __VA_ARGS__)
#define FHE_CUDA_CHECK_LAUNCH(kernel, ...) \
  ::fhe::cuda::check_launch(kernel, __FILE__, __LINE__ __VA_OPT__(, ) __VA_ARGS__)
