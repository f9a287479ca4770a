// The options every `fhelium workload` subcommand shares.
#include "recommend/cli/workload_options.h"

#include "fhe/core/build_info.h"
#include "fhe/core/device.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"

namespace fhelium::cli {

void add_common_options(CLI::App& command, CommonOptions& options) {
  command.add_option("--device", options.device, "cpu or cuda:N")->capture_default_str();
  command.add_option("--preset", options.preset, "Preset name")->capture_default_str();
  command.add_option("--backend", options.backend, "NTT backend (default: the stable fallback)");
  command.add_option("--seed", options.seed, "Seed of keys, inputs and the problem")
      ->capture_default_str();
  command.add_option("--warmup", options.warmup, "Untimed runs first")->capture_default_str();
  command.add_option("--runs", options.runs, "Timed runs")->capture_default_str();
  command.add_flag("--json", options.json, "Print JSON");
}

nlohmann::json build_json() {
  const fhe::BuildInfo& build = fhe::build_info();
  return {{"version", build.version}, {"git_commit", build.git_commit}, {"git_dirty", build.git_dirty}};
}

nlohmann::json run_json(const CommonOptions& options) {
  return {{"seed", options.seed}, {"warmup", options.warmup}, {"runs", options.runs}};
}

void validate_counts(const CommonOptions& options) {
  if (options.warmup < 0) throw fhe::InvalidArgument("--warmup must not be negative");
  if (options.runs < 1) throw fhe::InvalidArgument("--runs must be at least 1");
}

std::unique_ptr<fhe::CkksEngine> make_engine(const CommonOptions& options) {
  const fhe::DeviceSpec device = fhe::parse_device(options.device);
  fhe::require_device(device);
  return std::make_unique<fhe::CkksEngine>(
      options.preset, fhe::EngineOptions{.device = options.device, .ntt_backend = options.backend,
                                         .seed = options.seed});
}

}  // namespace fhelium::cli
