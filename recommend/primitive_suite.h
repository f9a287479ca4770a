// The ckks-primitive suite: encrypt_message, decrypt_message,
// multiply_relinearize, rotate_with_key (step 1) and
// rotate_many_by_steps[4] (steps 1, 2, 4, 8, hoisted), timed on one
// fhe::CkksEngine + fhe::Evaluator per backend whose keys are generated
// once, untimed. Correctness gate: decryption error of every operation
// within the abort limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "fhe/core/device.h"
#include "fhe/params/preset.h"
#include "recommend/device_memory.h"
#include "recommend/suite.h"

namespace fhelium {

// Decryption error above which a backend fails the primitive gate (SPEC 5).
inline constexpr double kPrimitiveAbortError = 1e-4;

// Throws InvalidArgument when `level` leaves no prime to rescale the
// product that the multiply check decrypts (level must be below L).
void check_primitive_level(const fhe::Preset& preset, int level);

// The suite holds every backend's engine at once (keys, evaluator,
// operands and results; on CUDA also each backend's device evaluator, keys
// and buffers). Throws DeviceError, before any key is made, when the host or
// the device cannot hold `backends` of them, saying how many would fit.
void check_primitive_memory(const fhe::Preset& preset, const fhe::DeviceSpec& device, std::size_t backends);
// The same for one side (the host, or a CUDA device) and its free memory.
void require_primitive_backends_fit(const fhe::Preset& preset, fhe::DeviceKind side, std::size_t backends,
                                    const DeviceMemory& memory);

std::unique_ptr<Suite> make_primitive_suite(const fhe::Preset& preset, const fhe::DeviceSpec& device,
                                            int level, std::uint64_t seed);

}  // namespace fhelium
