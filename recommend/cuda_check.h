// Checked CUDA runtime calls for the recommender's own device work (events,
// streams, buffers, L2 flush). Compiled only when CUDA is built.
#pragma once

#if FHELIUM_HAS_CUDA
#include <cuda_runtime_api.h>

#include <string>

#include "fhe/core/error.h"

namespace fhelium {

inline void check_cuda(cudaError_t status, const char* what, int device_index) {
  if (status != cudaSuccess) {
    throw fhe::DeviceError(std::string(what) + " failed on cuda:" + std::to_string(device_index) +
                           ": " + cudaGetErrorString(status));
  }
}

}  // namespace fhelium
#endif
