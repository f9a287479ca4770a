// The backend table, the strict-radix rule, schedules and plan factories.
#include "fhe/ntt/registry.h"

#include <algorithm>
#include <string>

#include "fhe/core/error.h"
#include "fhe/ntt/cpu/cpu_plan.h"
#if FHELIUM_HAS_CUDA
#include "fhe/ntt/cuda/cuda_plans.h"
#endif

namespace fhe::ntt {

std::string_view pass_kind_name(PassKind kind) {
  switch (kind) {
    case PassKind::global_stage: return "global_stage";
    case PassKind::global_group: return "global_group";
    case PassKind::global_digit: return "global_digit";
    case PassKind::shared_region: return "shared_region";
  }
  return "unknown";
}

const std::vector<BackendInfo>& all_backends() {
  using enum BackendFamily;
  static const std::vector<BackendInfo> backends = {
      {"radix2_indexed", indexed, 1,
       "one radix-2 stage per pass; expanded per-stage index and twiddle tables"},
      {"radix2_compact_group4_smem8", compact_grouped, 2,
       "compact twiddles; 2 radix-2 stages per global pass; last 8 stages in shared memory"},
      {"radix2_compact_group8_smem8", compact_grouped, 3,
       "compact twiddles; 3 radix-2 stages per global pass; last 8 stages in shared memory"},
      {"radix2_compact_group16_smem8", compact_grouped, 4,
       "compact twiddles; 4 radix-2 stages per global pass; last 8 stages in shared memory"},
      {"radix4_compact", strict_radix, 2,
       "strict radix-4 digits; shared region fuses min(D, 4) digits"},
      {"radix8_compact", strict_radix, 3,
       "strict radix-8 digits; shared region fuses min(D, 2) digits"},
      {"radix16_compact", strict_radix, 4,
       "strict radix-16 digits; shared region fuses min(D, 2) digits"},
  };
  return backends;
}

const BackendInfo& backend_info(std::string_view name) {
  for (const BackendInfo& backend : all_backends()) {
    if (backend.name == name) return backend;
  }
  std::string known;
  for (const BackendInfo& backend : all_backends()) {
    known += (known.empty() ? "" : ", ") + std::string(backend.name);
  }
  throw InvalidArgument("unknown NTT backend '" + std::string(name) + "' (known: " + known + ")");
}

Compatibility compatibility(const BackendInfo& backend, int log_n) {
  if (log_n < 1 || log_n > 17) {
    return {false, "logN " + std::to_string(log_n) + " is outside the supported range 1-17"};
  }
  switch (backend.family) {
    case BackendFamily::indexed:
      return {};
    case BackendFamily::compact_grouped:
      if (log_n < kSharedRegionBits) {
        return {false, "needs logN >= 8 for its 256-coefficient shared-memory tail"};
      }
      return {};
    case BackendFamily::strict_radix: {
      const int b = backend.stages_per_pass;
      if (log_n % b != 0) {
        return {false, "strict radix " + std::to_string(1 << b) + " needs logN divisible by " +
                           std::to_string(b) + " (logN " + std::to_string(log_n) + " mod " +
                           std::to_string(b) + " = " + std::to_string(log_n % b) + ")"};
      }
      return {};
    }
  }
  return {false, "unknown backend family"};
}

NttSchedule make_schedule(const BackendInfo& backend, int log_n) {
  Compatibility check = compatibility(backend, log_n);
  if (!check.compatible) {
    throw InvalidArgument("backend " + std::string(backend.name) +
                          " is incompatible with logN " + std::to_string(log_n) + ": " +
                          check.reason);
  }
  NttSchedule schedule;
  schedule.log_n = log_n;
  switch (backend.family) {
    case BackendFamily::indexed:
      for (int stage = 0; stage < log_n; ++stage) {
        schedule.passes.push_back({PassKind::global_stage, stage, 1, 0});
      }
      break;
    case BackendFamily::compact_grouped: {
      const int global_stages = log_n - kSharedRegionBits;
      for (int stage = 0; stage < global_stages; stage += backend.stages_per_pass) {
        const int count = std::min(backend.stages_per_pass, global_stages - stage);
        schedule.passes.push_back({PassKind::global_group, stage, count, 0});
      }
      schedule.passes.push_back({PassKind::shared_region, global_stages, kSharedRegionBits, 0});
      break;
    }
    case BackendFamily::strict_radix: {
      const int b = backend.stages_per_pass;
      const int digits = log_n / b;
      const int fused = std::min(digits, kSharedRegionBits / b);
      for (int digit = 0; digit < digits - fused; ++digit) {
        schedule.passes.push_back({PassKind::global_digit, digit * b, b, 1});
      }
      if (fused > 0) {
        schedule.passes.push_back({PassKind::shared_region, (digits - fused) * b, fused * b, fused});
      }
      break;
    }
  }
  return schedule;
}

std::unique_ptr<NttPlan> make_plan(std::string_view backend_name, const DeviceSpec& device,
                                   int log_n, std::span<const std::uint64_t> moduli,
                                   WordType word) {
  const BackendInfo& backend = backend_info(backend_name);
  NttSchedule schedule = make_schedule(backend, log_n);
  if (device.kind == DeviceKind::cuda) {
#if FHELIUM_HAS_CUDA
    return make_cuda_plan(backend, std::move(schedule), device.index, moduli, word);
#else
    throw DeviceError("device " + device.str() + " requested but this build has no CUDA support");
#endif
  }
  switch (backend.family) {
    case BackendFamily::indexed:
      return make_cpu_indexed_plan(backend, std::move(schedule), moduli, word);
    case BackendFamily::compact_grouped:
      return make_cpu_grouped_plan(backend, std::move(schedule), moduli, word);
    case BackendFamily::strict_radix:
      return make_cpu_strict_radix_plan(backend, std::move(schedule), moduli, word);
  }
  throw InvalidArgument("unknown backend family");
}

std::string_view default_backend(DeviceKind device) {
  return device == DeviceKind::cuda ? kStableFallback : kOracleBackend;
}

bool cuda_built() { return FHELIUM_HAS_CUDA != 0; }

}  // namespace fhe::ntt
