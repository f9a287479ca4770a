// `fhelium benchmark profile ntt --backend A [--backend B ...] [--preset P]
// [--level l] [--device cuda:N] [--json FILE] [--raw-dir DIR]`, and the
// hidden `fhelium ntt run-once` that the profile runs under Nsight Compute.
#include <filesystem>
#include <iostream>
#include <memory>

#include "fhe/core/error.h"
#include "recommend/atomic_file.h"
#include "recommend/cli/commands.h"
#include "recommend/ntt_profile_runner.h"
#include "recommend/ntt_run_once.h"

namespace fhelium::cli {
namespace {

struct ProfileCommandOptions {
  NttProfileRequest request;
  std::string json;
  std::string raw_dir;
};

void run_profile(ProfileCommandOptions& options) {
  validate_profile_request(options.request);
  if (!options.json.empty()) check_output_path(options.json);
  if (!options.raw_dir.empty()) {
    if (!std::filesystem::is_directory(options.raw_dir))
      throw fhe::InvalidArgument("--raw-dir " + options.raw_dir + " is not an existing directory");
    check_output_path(std::filesystem::path(options.raw_dir) / "ncu-version.log");
    options.request.raw_dir = options.raw_dir;
  }
  const nlohmann::json document = run_ntt_profile(options.request);
  print_ntt_profile(std::cout, document);
  if (document["source"] != "ncu")
    std::cerr << "fhelium: warning: " << document["source"].get<std::string>()
              << "; the table shows static describe figures, not measurements\n";
  if (!options.json.empty()) {
    write_file_atomically(options.json, [&](std::ostream& out) { out << document.dump(2) << '\n'; });
    std::cout << "profile: " << options.json << '\n';
  }
}

}  // namespace

void add_profile_command(CLI::App& benchmark, const std::vector<std::string>& argv) {
  auto* profile = benchmark.add_subcommand("profile", "Profile kernels under Nsight Compute");
  profile->require_subcommand(1);
  auto* command = profile->add_subcommand(
      "ntt", "Counters of one forward and one inverse transform per backend (ncu, else describe)");
  auto options = std::make_shared<ProfileCommandOptions>();
  options->request.argv = argv;
  command->add_option("--backend", options->request.backends, "Backend to profile (repeatable, at least one)");
  command->add_option("--preset", options->request.preset, "Preset name")->capture_default_str();
  command->add_option("--level", options->request.level, "Use the active rows of this level")->capture_default_str();
  command->add_option("--device", options->request.device, "cuda:N")->capture_default_str();
  command->add_option("--seed", options->request.seed, "Seed of the random input words")->capture_default_str();
  command->add_option("--json", options->json, "Write the profile (with provenance) as JSON");
  command->add_option("--raw-dir", options->raw_dir,
                      "Existing directory that keeps ncu's reports (.ncu-rep), logs and CSV pages");
  command->callback([options] { run_profile(*options); });
}

void add_ntt_run_once_command(CLI::App& ntt) {
  auto* command = ntt.add_subcommand("run-once", "One transform inside a cudaProfilerStart/Stop range (for ncu)");
  command->group("");  // hidden: `benchmark profile ntt` runs it
  auto request = std::make_shared<RunOnceRequest>();
  command->add_option("--backend", request->backend, "Backend")->required();
  command->add_option("--preset", request->preset, "Preset name")->required();
  command->add_option("--level", request->level, "Use the active rows of this level");
  command->add_option("--direction", request->direction, "forward or inverse");
  command->add_option("--device", request->device, "cuda:N");
  command->add_option("--seed", request->seed, "Seed of the random input words");
  command->callback([request] { run_transform_once_profiled(*request); });
}

}  // namespace fhelium::cli
