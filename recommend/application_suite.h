// The application suite (SPEC sections 5 and 7): the rotation-parallel
// matvec or the level-specific key-switch schedule, timed per backend on
// one fhe::CkksEngine whose keys (exactly those the workload needs) and
// workload are built once, untimed. One sample is one run of the workload
// from its staged input ciphertext to its output ciphertext. Correctness
// gate: decryption error within 5e-5 (matvec) or 1e-4 (key switches); a
// backend named in workload.injected_faults (test-only) gets a wrong output
// word before the gate. On CUDA both workloads run on the device
// (CudaMatvec, CudaKeySwitchWorkload): a sample is one graph replay or
// eager launch, timed with CUDA events on the workload's stream.
#pragma once

#include <cstdint>
#include <memory>

#include "fhe/core/device.h"
#include "fhe/params/preset.h"
#include "recommend/application_workload.h"
#include "recommend/suite.h"

namespace fhelium {

std::unique_ptr<Suite> make_application_suite(const fhe::Preset& preset, const fhe::DeviceSpec& device,
                                              const ApplicationWorkload& workload, std::uint64_t seed);

}  // namespace fhelium
