// The one registry of NTT backends, used by the engine, the tests, the
// command line and the recommender alike (like CUTLASS's operation table:
// check `compatibility` before `make_plan`).
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "fhe/ntt/backend.h"

namespace fhe::ntt {

// The seven backends, in SPEC order.
const std::vector<BackendInfo>& all_backends();

// Throws InvalidArgument naming the known backends for an unknown name.
const BackendInfo& backend_info(std::string_view name);

// The strict-radix rule: radix 2^b needs logN mod b == 0. Grouped and
// indexed backends need logN >= 9 so that the shared tail leaves a global pass.
Compatibility compatibility(const BackendInfo& backend, int log_n);

// The passes of one transform. Throws InvalidArgument when incompatible.
NttSchedule make_schedule(const BackendInfo& backend, int log_n);

// Builds the twiddle tables and kernels' state once; reuse the plan.
// Throws InvalidArgument for an incompatible backend or a modulus that does
// not fit `word`, DeviceError when the device is absent.
std::unique_ptr<NttPlan> make_plan(std::string_view backend_name, const DeviceSpec& device,
                                   int log_n, std::span<const std::uint64_t> moduli,
                                   WordType word);

// The stable fallback of the decision rules on every device (SPEC sections
// 2 and 6): recommended whenever it is in the near-tie set.
inline constexpr std::string_view kStableFallback = "radix2_compact_group8_smem8";

// The backend of an engine that names none: the stable fallback on CUDA
// (the CUDA default), the oracle radix2_indexed on the CPU.
std::string_view default_backend(DeviceKind device);

// The backend every other one is checked against.
inline constexpr std::string_view kOracleBackend = "radix2_indexed";

// True when this build has the CUDA backends compiled in.
bool cuda_built();

}  // namespace fhe::ntt
