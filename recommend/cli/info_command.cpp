// `fhelium info [--json]`: build, compiler, CUDA availability and devices.
#include <iostream>

#include <nlohmann/json.hpp>

#include "fhe/core/build_info.h"
#include "fhe/core/device_info.h"
#include "recommend/cli/commands.h"

namespace fhelium::cli {

void add_info_command(CLI::App& app) {
  auto* command = app.add_subcommand("info", "Print build, compiler, CUDA and device facts");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "Print JSON");
  command->callback([json] {
    const fhe::BuildInfo& b = fhe::build_info();
    const fhe::GpuInventory gpus = fhe::query_gpus();
    nlohmann::json out = {{"version", b.version},
                          {"git_commit", b.git_commit},
                          {"git_dirty", b.git_dirty},
                          {"build_type", b.build_type},
                          {"cxx_compiler", b.cxx_compiler},
                          {"cxx_flags", b.cxx_flags},
                          {"cuda_built", b.cuda_built},
                          {"cuda_compiler", b.cuda_compiler},
                          {"cuda_architectures", b.cuda_architectures},
                          {"cuda_runtime_version", gpus.runtime_version},
                          {"cuda_driver_version", gpus.driver_version},
                          {"device_status", gpus.status},
                          {"devices", nlohmann::json::array()}};
    for (const fhe::GpuInfo& g : gpus.gpus) {
      out["devices"].push_back({{"device", "cuda:" + std::to_string(g.index)},
                                {"name", g.name},
                                {"uuid", g.uuid},
                                {"compute_capability", std::to_string(g.compute_major) + "." +
                                                           std::to_string(g.compute_minor)},
                                {"sm_count", g.sm_count},
                                {"total_memory_bytes", g.total_memory_bytes},
                                {"l2_cache_bytes", g.l2_cache_bytes}});
    }
    if (*json) {
      std::cout << out.dump(2) << '\n';
      return;
    }
    std::cout << "fhelium " << b.version << " (commit " << b.git_commit
              << (b.git_dirty ? ", dirty" : "") << ", " << b.build_type << ")\n"
              << "C++ compiler: " << b.cxx_compiler << "\n"
              << "CUDA: "
              << (b.cuda_built ? "built (" + b.cuda_compiler + ", sm_" + b.cuda_architectures + ")"
                               : std::string("not built"))
              << "\n";
    if (gpus.gpus.empty()) {
      std::cout << "devices: cpu only (" << gpus.status << ")\n";
    }
    for (const fhe::GpuInfo& g : gpus.gpus) {
      std::cout << "cuda:" << g.index << ": " << g.name << ", sm_" << g.compute_major
                << g.compute_minor << ", " << g.sm_count << " SMs, "
                << g.total_memory_bytes / (1024 * 1024) << " MiB\n";
    }
  });
}

}  // namespace fhelium::cli
