// `fhelium ntt describe`: the kernel launches of one forward and one inverse
// transform of a backend on a device (name, launches, grid/block, registers,
// shared memory, resident blocks per SM, modelled DRAM bytes, pass kind),
// read from the plan's describe() so the CPU and CUDA report alike.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "recommend/cli/commands.h"
#include "recommend/text_table.h"

namespace fhelium::cli {
namespace {

struct DescribeOptions {
  std::string preset = std::string(fhe::kDefaultPresetName);
  std::string device = "cpu";
  std::string backend;  // empty: the device's stable fallback
  int level = 0;
  bool json = false;
};

// CPU passes have no launch shape or GPU resources: shown as "-".
std::string shape_text(const unsigned (&dims)[3]) {
  if (dims[0] == 0) return "-";
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
}

template <typename Number>
std::string gpu_number(const fhe::ntt::LaunchDescription& launch, Number value) {
  return launch.block[0] == 0 ? "-" : std::to_string(value);
}

std::string stages_text(const fhe::ntt::LaunchDescription& launch) {
  return std::to_string(launch.first_stage) + "-" +
         std::to_string(launch.first_stage + launch.stage_count - 1);
}

nlohmann::json launch_json(const fhe::ntt::LaunchDescription& launch) {
  return {{"kernel", launch.kernel},
          {"pass_kind", fhe::ntt::pass_kind_name(launch.pass_kind)},
          {"first_stage", launch.first_stage},
          {"stage_count", launch.stage_count},
          {"launch_count", launch.launch_count},
          {"grid", {launch.grid[0], launch.grid[1], launch.grid[2]}},
          {"block", {launch.block[0], launch.block[1], launch.block[2]}},
          {"registers_per_thread", launch.registers_per_thread},
          {"static_shared_bytes", launch.static_shared_bytes},
          {"dynamic_shared_bytes", launch.dynamic_shared_bytes},
          {"max_blocks_per_sm", launch.max_blocks_per_sm},
          {"modelled_dram_bytes", launch.modelled_dram_bytes}};
}

void run_describe(const DescribeOptions& options) {
  const fhe::Preset& preset = fhe::preset_by_name(options.preset);
  const fhe::DeviceSpec device = fhe::parse_device(options.device);
  const std::string backend_name =
      options.backend.empty() ? std::string(fhe::ntt::default_backend(device.kind)) : options.backend;
  const fhe::ntt::BackendInfo& backend = fhe::ntt::backend_info(backend_name);
  const fhe::ntt::Compatibility check = fhe::ntt::compatibility(backend, preset.log_n);
  if (!check.compatible) {
    throw fhe::InvalidArgument("backend " + backend_name + " is incompatible with preset " +
                               preset.name + ": " + check.reason);
  }
  const fhe::ntt::RowRange rows = fhe::ntt::level_rows(preset, options.level);
  fhe::require_device(device);
  auto plan = fhe::ntt::make_plan(backend.name, device, preset.log_n, preset.qp_primes(), preset.word);

  nlohmann::json out = {{"preset", preset.name},
                        {"backend", backend.name},
                        {"device", device.str()},
                        {"level", options.level},
                        {"log_n", preset.log_n},
                        {"word", fhe::word_type_name(preset.word)},
                        {"rows", {{"first", rows.first}, {"count", rows.count}}}};
  TextTable table({"direction", "kernel", "pass", "stages", "launches", "grid", "block", "regs",
                   "smem static", "smem dynamic", "blocks/SM", "modelled MB"});
  for (bool forward : {true, false}) {
    const char* direction = forward ? "forward" : "inverse";
    std::size_t total_bytes = 0;
    int total_launches = 0;
    nlohmann::json launches = nlohmann::json::array();
    for (const fhe::ntt::LaunchDescription& launch : plan->describe(rows, forward)) {
      launches.push_back(launch_json(launch));
      total_bytes += launch.modelled_dram_bytes;
      total_launches += launch.launch_count;
      table.add_row({direction, launch.kernel, std::string(fhe::ntt::pass_kind_name(launch.pass_kind)),
                     stages_text(launch), std::to_string(launch.launch_count),
                     shape_text(launch.grid), shape_text(launch.block),
                     gpu_number(launch, launch.registers_per_thread),
                     gpu_number(launch, launch.static_shared_bytes),
                     gpu_number(launch, launch.dynamic_shared_bytes),
                     gpu_number(launch, launch.max_blocks_per_sm),
                     format_number(launch.modelled_dram_bytes / 1e6, 2)});
    }
    out[direction] = {{"launches", launches},
                      {"launch_count", total_launches},
                      {"modelled_dram_bytes", total_bytes}};
  }
  if (options.json) {
    std::cout << out.dump(2) << '\n';
    return;
  }
  std::cout << "describe: backend " << backend.name << ", preset " << preset.name << ", level "
            << options.level << " (" << rows.count << " rows x " << preset.n() << ", "
            << fhe::word_type_name(preset.word) << "), device " << device.str() << "\n";
  table.print(std::cout);
  for (const char* direction : {"forward", "inverse"}) {
    std::cout << direction << ": " << out[direction]["launch_count"].get<int>()
              << " launches, modelled "
              << format_number(out[direction]["modelled_dram_bytes"].get<std::size_t>() / 1e6, 2)
              << " MB (data in and out per pass plus distinct twiddle and index words)\n";
  }
}

}  // namespace

void add_ntt_describe_command(CLI::App& ntt) {
  auto* command = ntt.add_subcommand(
      "describe", "Kernel launches, shapes and resources of one forward and one inverse transform");
  auto options = std::make_shared<DescribeOptions>();
  command->add_option("--backend", options->backend,
                      "Backend (default: the device's stable fallback)");
  command->add_option("--preset", options->preset, "Preset name")->capture_default_str();
  command->add_option("--device", options->device, "cpu or cuda:N")->capture_default_str();
  command->add_option("--level", options->level, "Use the active rows of this level")
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print JSON");
  command->callback([options] { run_describe(*options); });
}

}  // namespace fhelium::cli
