// What the application suite runs (SPEC section 7), as validated from the
// request: the matvec with its configuration, or the key-switch schedule
// at chosen levels. From it alone follow the operation names (so weights
// are checked before any timing), the per-backend memory plan and the
// description recorded in the evidence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/params/preset.h"
#include "workloads/matvec/matvec_config.h"
#include "workloads/memory_plan.h"

namespace fhelium {

enum class ApplicationWorkloadKind { matvec, keyswitch };

inline constexpr std::string_view kMatvecWorkload = "matvec";
inline constexpr std::string_view kKeySwitchWorkload = "keyswitch";

struct ApplicationWorkload {
  ApplicationWorkloadKind kind = ApplicationWorkloadKind::matvec;
  fhe::workloads::MatvecConfig matvec;  // kind == matvec; matvec.seed is the run's seed
  // CUDA only: a sample replays a captured CUDA graph (matvec: the whole
  // product; keyswitch: the one key switch) instead of enqueuing eagerly.
  bool graph = false;
  std::vector<int> levels = {0};        // kind == keyswitch: sorted, unique
  int rotation_step = 1;                // kind == keyswitch
  // Test-only (the hidden --inject-fault): backends whose outputs get one
  // wrong word before the correctness gate decrypts them, so that a test can
  // show a wrong candidate excluded. Recorded in the evidence when set.
  std::vector<std::string> injected_faults;
};

std::string_view workload_name(ApplicationWorkloadKind kind);

// matvec: one operation, "matvec_<d>x<d>_<method>_<policy>", so that a
// table or weight names the configuration it timed; keyswitch:
// relinearize@level<l> and rotate@level<l> for each level, in level order.
std::vector<std::string> application_operations(const ApplicationWorkload& workload);

// The rotation steps whose Galois keys the workload needs (no zero).
std::vector<int> application_rotation_steps(const ApplicationWorkload& workload);

// Memory one backend's engine, keys and workload hold.
fhe::workloads::MemoryPlan application_memory_plan(const fhe::Preset& preset, const ApplicationWorkload& workload,
                                                   fhe::DeviceKind device);

// {"name", then the configuration of that workload (matvec: and its Galois
// key count), and "injected_faults" when a test injected any}.
nlohmann::json workload_to_json(const ApplicationWorkload& workload);

}  // namespace fhelium
