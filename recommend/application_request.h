// The application-suite options of `fhelium benchmark recommend ntt`
// (--workload and the workload's own options) and their validation into an
// ApplicationWorkload, then the memory check: every screened backend holds
// its own engine, keys and workload at once, so the device must hold the
// per-backend plan that many times. All of it runs before any timing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/device.h"
#include "fhe/params/preset.h"
#include "recommend/application_workload.h"
#include "recommend/device_memory.h"
#include "workloads/memory_plan.h"

namespace fhelium {

// The options of each workload, as the command line spells them.
inline const std::vector<std::string> kMatvecOptionNames = {
    "--dim", "--method", "--diagonal-policy", "--hoist", "--baby-steps", "--batch", "--workers", "--graph"};
inline const std::vector<std::string> kKeySwitchOptionNames = {"--levels", "--step", "--graph"};

struct ApplicationOptions {
  std::string workload;  // matvec or keyswitch; required by --suite application
  int dim = 128;
  std::string method = "diagonal";
  std::string diagonal_policy = "batch";
  int hoist = 64;
  int baby_steps = 0;  // bsgs: g, when given (else the automatic fhe::workloads::bsgs_baby_steps)
  int batch = 16;
  int workers = 1;
  std::string graph;  // on|off; empty: on for CUDA, off for the CPU
  std::string levels = "0";
  int step = 1;
  // The hidden --inject-fault BACKEND (repeatable): test-only, see
  // ApplicationWorkload::injected_faults. Applies to either workload.
  std::vector<std::string> inject_fault;
  // Options set on the command line ("--dim", ...), so that one that does
  // not apply to the suite or workload is refused instead of ignored.
  std::vector<std::string> given;
};

// --graph: empty means on for CUDA, off for the CPU; "on" on the CPU is
// refused (graph capture is a CUDA feature). Throws InvalidArgument.
bool parse_graph_option(const std::string& text, const fhe::DeviceSpec& device);

// Throws InvalidArgument when `suite` is not the application suite and an
// application option was given.
void reject_application_options(const ApplicationOptions& options, const std::string& suite);

// Validates the options for `preset` and `device` (no device access).
// Throws InvalidArgument with one line naming the option.
ApplicationWorkload resolve_application_workload(const ApplicationOptions& options,
                                                 const fhe::Preset& preset,
                                                 const fhe::DeviceSpec& device);

struct ApplicationPlan {
  ApplicationWorkload workload;
  fhe::workloads::MemoryPlan per_backend;
  std::size_t backends_held = 0;
  DeviceMemory device_memory;
  // Matvec keys are held once (CudaMatvecOptions::shared_keys); the rest per backend.
  std::size_t shared_bytes = 0;
  std::size_t total_bytes() const { return shared_bytes + backends_held * (per_backend.total_bytes() - shared_bytes); }
};

// The memory plan of `backends` backends held at once, checked against what
// `device` can give; throws DeviceError (the matvec one names the largest
// hoist or dimension that would fit).
ApplicationPlan plan_application(const ApplicationWorkload& workload, const fhe::Preset& preset,
                                 const fhe::DeviceSpec& device, std::size_t backends);

// metadata.workload and metadata.memory_plan of the evidence.
nlohmann::json application_metadata(const ApplicationPlan& plan);

}  // namespace fhelium
