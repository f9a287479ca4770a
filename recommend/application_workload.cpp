// Names, keys, memory and description of the application workloads.
#include "recommend/application_workload.h"

#include "workloads/keyswitch/keyswitch_problem.h"
#include "workloads/matvec/matvec_problem.h"

namespace fhelium {

std::string_view workload_name(ApplicationWorkloadKind kind) {
  return kind == ApplicationWorkloadKind::matvec ? kMatvecWorkload : kKeySwitchWorkload;
}

std::vector<std::string> application_operations(const ApplicationWorkload& workload) {
  if (workload.kind == ApplicationWorkloadKind::matvec) {
    const fhe::workloads::MatvecConfig& c = workload.matvec;
    const std::string d = std::to_string(c.dim);
    return {"matvec_" + d + "x" + d + "_" + std::string(fhe::workloads::method_name(c.method)) + "_" +
            std::string(fhe::workloads::policy_name(c.policy))};
  }
  std::vector<std::string> names;
  for (const auto& op : fhe::workloads::key_switch_operations(workload.levels)) names.push_back(op.name());
  return names;
}

std::vector<int> application_rotation_steps(const ApplicationWorkload& workload) {
  if (workload.kind == ApplicationWorkloadKind::matvec)
    return fhe::workloads::matvec_rotation_steps(workload.matvec);
  return {workload.rotation_step};
}

fhe::workloads::MemoryPlan application_memory_plan(const fhe::Preset& preset, const ApplicationWorkload& workload,
                                                   fhe::DeviceKind device) {
  return workload.kind == ApplicationWorkloadKind::matvec
             ? fhe::workloads::plan_matvec_memory(preset, workload.matvec, device)
             : fhe::workloads::plan_keyswitch_memory(preset, workload.levels, device);
}

nlohmann::json workload_to_json(const ApplicationWorkload& workload) {
  nlohmann::json out;
  if (workload.kind == ApplicationWorkloadKind::keyswitch) {
    out = {{"name", kKeySwitchWorkload},
           {"levels", workload.levels},
           {"rotation_step", workload.rotation_step},
           {"graph", workload.graph ? "on" : "off"}};
  } else {
    const fhe::workloads::MatvecConfig& c = workload.matvec;
    out = {{"name", kMatvecWorkload},
           {"dim", c.dim},
           {"method", fhe::workloads::method_name(c.method)},
           {"diagonal_policy", fhe::workloads::policy_name(c.policy)},
           {"hoist", c.hoist},
           {"baby_steps", c.method == fhe::workloads::MatvecMethod::bsgs
                              ? nlohmann::json(fhe::workloads::bsgs_baby_steps(c))
                              : nlohmann::json(nullptr)},
           {"batch", c.batch},
           {"workers", c.workers},
           {"graph", workload.graph ? "on" : "off"},
           {"problem_seed", c.seed},
           {"galois_keys", application_rotation_steps(workload).size()}};
  }
  if (!workload.injected_faults.empty()) out["injected_faults"] = workload.injected_faults;
  return out;
}

}  // namespace fhelium
