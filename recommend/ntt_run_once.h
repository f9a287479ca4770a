// The work `fhelium benchmark profile ntt` puts under Nsight Compute: one
// NTT transform of one backend on random fully reduced words, inside a
// cudaProfilerStart/Stop range, after one warm-up transform outside it, so
// that `ncu --profile-from-start off` sees exactly the kernels of one
// transform (and not the plan's set-up, the upload or the warm-up).
#pragma once

#include <cstdint>
#include <string>

#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhelium {

// The backend, checked to exist and to suit the preset (InvalidArgument otherwise).
const fhe::ntt::BackendInfo& compatible_backend(const std::string& name, const fhe::Preset& preset);

// "forward" or "inverse"; InvalidArgument otherwise.
bool parse_direction_is_forward(const std::string& direction);

struct RunOnceRequest {
  std::string backend;
  std::string preset;
  int level = 0;
  std::string direction = "forward";
  std::string device = "cuda:0";
  std::uint64_t seed = 1;
};

// Throws InvalidArgument for bad names, a CPU device or a level outside the
// preset; DeviceError when the device is absent or CUDA fails.
void run_transform_once_profiled(const RunOnceRequest& request);

}  // namespace fhelium
