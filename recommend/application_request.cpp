// Validation and memory planning of the application suite's options.
#include "recommend/application_request.h"

#include <algorithm>

#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "workloads/keyswitch/keyswitch_problem.h"

namespace fhelium {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The first given option that is not in `allowed`, or "".
std::string first_foreign(const ApplicationOptions& options, const std::vector<std::string>& allowed) {
  for (const std::string& option : options.given)
    if (!contains(allowed, option)) return option;
  return "";
}

// --inject-fault names: known backends (an unknown name throws
// InvalidArgument), each once.
std::vector<std::string> checked_fault_backends(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    fhe::ntt::backend_info(name);
    if (!contains(out, name)) out.push_back(name);
  }
  return out;
}

}  // namespace

bool parse_graph_option(const std::string& text, const fhe::DeviceSpec& device) {
  if (text.empty()) return device.kind == fhe::DeviceKind::cuda;
  if (text != "on" && text != "off")
    throw fhe::InvalidArgument("--graph must be 'on' or 'off', got '" + text + "'");
  if (text == "on" && device.kind != fhe::DeviceKind::cuda)
    throw fhe::InvalidArgument("--graph on needs a CUDA device (graph capture is a CUDA feature), got " +
                               device.str());
  return text == "on";
}

void reject_application_options(const ApplicationOptions& options, const std::string& suite) {
  if (!options.workload.empty() || !options.given.empty() || !options.inject_fault.empty()) {
    const std::string option = !options.given.empty()       ? options.given.front()
                               : !options.workload.empty() ? "--workload"
                                                           : "--inject-fault";
    throw fhe::InvalidArgument(option + " applies only to --suite application, not to --suite " + suite);
  }
}

ApplicationWorkload resolve_application_workload(const ApplicationOptions& options,
                                                 const fhe::Preset& preset,
                                                 const fhe::DeviceSpec& device) {
  ApplicationWorkload workload;
  if (options.workload == kMatvecWorkload) {
    workload.kind = ApplicationWorkloadKind::matvec;
    if (const std::string foreign = first_foreign(options, kMatvecOptionNames); !foreign.empty())
      throw fhe::InvalidArgument(foreign + " does not apply to --workload matvec");
    fhe::workloads::MatvecConfig& config = workload.matvec;
    config.dim = options.dim;
    config.method = fhe::workloads::parse_method(options.method);
    config.policy = fhe::workloads::parse_policy(options.diagonal_policy);
    if (contains(options.given, "--batch") && config.policy != fhe::workloads::DiagonalPolicy::batch)
      throw fhe::InvalidArgument("--batch applies only to --diagonal-policy batch (got --diagonal-policy " +
                                 options.diagonal_policy + ")");
    config.hoist = options.hoist;
    if (contains(options.given, "--baby-steps")) config.baby_steps = options.baby_steps;
    config.batch = options.batch;
    config.workers = options.workers;
    fhe::workloads::validate(config, preset.slots());
    workload.graph = parse_graph_option(options.graph, device);
    workload.injected_faults = checked_fault_backends(options.inject_fault);
    return workload;
  }
  if (options.workload == kKeySwitchWorkload) {
    workload.kind = ApplicationWorkloadKind::keyswitch;
    if (const std::string foreign = first_foreign(options, kKeySwitchOptionNames); !foreign.empty())
      throw fhe::InvalidArgument(foreign + " does not apply to --workload keyswitch");
    workload.levels = fhe::workloads::parse_levels(options.levels, preset.levels);
    fhe::workloads::check_rotation_step(options.step, preset.slots());
    workload.rotation_step = options.step;
    workload.graph = parse_graph_option(options.graph, device);
    workload.injected_faults = checked_fault_backends(options.inject_fault);
    return workload;
  }
  throw fhe::InvalidArgument(options.workload.empty()
                                 ? "--suite application needs --workload matvec or keyswitch"
                                 : "unknown workload '" + options.workload + "' (known: matvec, keyswitch)");
}

ApplicationPlan plan_application(const ApplicationWorkload& workload, const fhe::Preset& preset,
                                 const fhe::DeviceSpec& device, std::size_t backends) {
  ApplicationPlan plan;
  plan.workload = workload;
  plan.per_backend = application_memory_plan(preset, workload, device.kind);
  plan.backends_held = backends;
  plan.device_memory = available_device_memory(device);
  // The backends are held at once. The matvec's keys are one copy for all
  // of them (adopt_keys and shared device keys), the rest is each one's; the
  // refusal's suggestion is checked the same way, so it holds for the run.
  const std::size_t held = std::max<std::size_t>(backends, 1);
  const std::size_t available = plan.device_memory.available_bytes;
  const std::string held_text = " (" + std::to_string(backends) + " backends are held at once)";
  if (workload.kind == ApplicationWorkloadKind::matvec) {
    plan.shared_bytes = plan.per_backend.bytes_of("keys");
    fhe::workloads::require_fits(preset, workload.matvec, device.kind, available,
                                 plan.device_memory.description + " holding one shared key set and " +
                                     std::to_string(backends) + " copies of the rest" + held_text,
                                 held);
  } else {
    const std::size_t share = available / held;
    const std::string holder = "a 1/" + std::to_string(backends) + " share of " + plan.device_memory.description +
                               held_text;
    fhe::workloads::require_plan_fits(preset, plan.per_backend, "keyswitch", share, holder);
  }
  return plan;
}

nlohmann::json application_metadata(const ApplicationPlan& plan) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : plan.per_backend.items) items.push_back({{"name", item.name}, {"bytes", item.bytes}});
  return {{"workload", workload_to_json(plan.workload)},
          {"memory_plan",
           {{"per_backend", items},
            {"per_backend_bytes", plan.per_backend.total_bytes()},
            {"per_backend_summary", plan.per_backend.summary()},
            {"shared_bytes", plan.shared_bytes},
            {"backends_held", plan.backends_held},
            {"total_bytes", plan.total_bytes()},
            {"checked_against", plan.device_memory.description},
            {"available_bytes", plan.device_memory.available_bytes}}}};
}

}  // namespace fhelium
