// Validation and defaults of the recommend command.
#include "recommend/recommend_request.h"

#include <algorithm>
#include <random>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "recommend/atomic_file.h"
#include "recommend/harness.h"
#include "recommend/primitive_suite.h"
#include "recommend/suite_catalog.h"

namespace fhelium {
namespace {

fhe::DeviceSpec resolve_device(const std::string& text) {
  if (!text.empty()) return fhe::parse_device(text);
  return fhe::query_gpus().gpus.empty() ? fhe::DeviceSpec{fhe::DeviceKind::cpu, 0}
                                        : fhe::DeviceSpec{fhe::DeviceKind::cuda, 0};
}

// Default: every compatible backend, except the expanded-table oracle on
// CUDA (deployments there compare the compact candidates); the strict
// radices the preset's logN excludes are recorded as rejected with their
// reason. A backend named with --backend must fit the preset: an
// incompatible one is bad input, as in `ntt verify`.
void resolve_backends(const RecommendOptions& options, const fhe::Preset& preset,
                      const fhe::DeviceSpec& device, RecommendPlan& plan) {
  if (options.backends.empty()) {
    for (const fhe::ntt::BackendInfo& backend : fhe::ntt::all_backends()) {
      if (device.kind == fhe::DeviceKind::cuda && backend.name == fhe::ntt::kOracleBackend) continue;
      const fhe::ntt::Compatibility check = fhe::ntt::compatibility(backend, preset.log_n);
      if (check.compatible) {
        plan.backends.emplace_back(backend.name);
      } else {
        plan.rejected.push_back({std::string(backend.name), check.reason});
      }
    }
  } else {
    for (const std::string& name : options.backends) {
      const fhe::ntt::BackendInfo& backend = fhe::ntt::backend_info(name);  // unknown: throws
      if (std::find(plan.backends.begin(), plan.backends.end(), name) != plan.backends.end()) continue;
      const fhe::ntt::Compatibility check = fhe::ntt::compatibility(backend, preset.log_n);
      if (!check.compatible)
        throw fhe::InvalidArgument("backend " + name + " does not fit preset " + preset.name + ": " + check.reason);
      plan.backends.push_back(name);
    }
  }
  if (plan.backends.size() < 2) {
    throw fhe::InvalidArgument("a recommendation needs at least 2 unique compatible backends for preset " +
                               preset.name + " (logN " + std::to_string(preset.log_n) + "), got " +
                               std::to_string(plan.backends.size()));
  }
}

}  // namespace

std::filesystem::path failing_input_path(const std::filesystem::path& output,
                                         const std::string& backend) {
  std::filesystem::path path = output;
  path.replace_extension();
  return path.string() + ".failing-" + backend + ".json";
}

RecommendPlan resolve_request(const RecommendOptions& options) {
  RecommendPlan plan;
  require_known_suite(options.suite);
  plan.suite = options.suite;
  const bool application = plan.suite == kApplicationSuite;
  plan.preset = &fhe::preset_by_name(options.preset);
  plan.device = resolve_device(options.device);
  plan.level = options.level;
  if (options.level < 0 || options.level > plan.preset->levels)
    throw fhe::InvalidArgument("--level " + std::to_string(options.level) + " is outside 0.." +
                               std::to_string(plan.preset->levels) + " for preset " + plan.preset->name);
  if (plan.suite == kPrimitiveSuite) check_primitive_level(*plan.preset, plan.level);
  std::optional<ApplicationWorkload> workload;
  if (application) {
    // The matvec runs at level 0; key switches take their levels from --levels.
    if (options.level != 0)
      throw fhe::InvalidArgument("--level does not apply to --suite application "
                                 "(use --levels with --workload keyswitch)");
    workload = resolve_application_workload(options.application, *plan.preset, plan.device);
  } else {
    reject_application_options(options.application, plan.suite);
  }
  resolve_backends(options, *plan.preset, plan.device, plan);
  validate_harness_counts(options.warmup, options.runs, options.repetitions);
  plan.warmup = options.warmup;
  plan.runs = options.runs;
  plan.repetitions = options.repetitions;
  plan.operations = workload ? application_operations(*workload) : suite_operations(plan.suite);
  plan.weights_text = options.weights;
  plan.weights = parse_weights(options.weights, plan.operations);
  plan.policy = parse_policy(options.policy);
  if (options.l2_flush != "on" && options.l2_flush != "off")
    throw fhe::InvalidArgument("--l2-flush must be 'on' or 'off', got '" + options.l2_flush + "'");
  plan.l2_flush = options.l2_flush == "on";
  std::string stem = "ntt-recommendation-" + options.suite;
  if (workload) stem.append("-").append(workload_name(workload->kind));
  plan.output = options.output.empty() ? stem + ".json" : options.output;
  check_output_path(plan.output);
  // The device last, so that plain input errors are reported without touching the driver.
  fhe::require_device(plan.device);
  if (workload) plan.application = plan_application(*workload, *plan.preset, plan.device, plan.backends.size());
  if (plan.suite == kPrimitiveSuite) check_primitive_memory(*plan.preset, plan.device, plan.backends.size());
  if (options.seed) {
    plan.seed = *options.seed;
  } else {
    std::random_device entropy;
    plan.seed = (std::uint64_t{entropy()} << 32) | entropy();
  }
  // The matvec's matrix and vector are drawn from the run's seed, like its keys.
  if (plan.application) plan.application->workload.matvec.seed = plan.seed;
  return plan;
}

}  // namespace fhelium
