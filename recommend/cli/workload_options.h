// Options and helpers shared by the `fhelium workload` subcommands (one
// file each: workload_matvec_command.cpp, workload_keyswitch_command.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fhe/ckks/engine.h"

namespace fhelium::cli {

struct CommonOptions {
  std::string device = "cpu";
  std::string preset = std::string(fhe::kDefaultPresetName);
  std::string backend;  // empty: the device's stable fallback
  std::uint64_t seed = 1;
  int warmup = 1;
  int runs = 3;
  bool json = false;
};

void add_common_options(CLI::App& command, CommonOptions& options);
void validate_counts(const CommonOptions& options);
// version, git_commit and git_dirty of this build, for the --json outputs.
nlohmann::json build_json();
// seed, warmup and runs, so a --json output says how to run it again.
nlohmann::json run_json(const CommonOptions& options);
std::unique_ptr<fhe::CkksEngine> make_engine(const CommonOptions& options);

// Host wall-clock samples of `run` (warm-up first): the CPU path's timer.
template <typename Run>
std::vector<double> time_runs_ms(const CommonOptions& options, Run&& run) {
  for (int i = 0; i < options.warmup; ++i) run();
  std::vector<double> samples;
  for (int i = 0; i < options.runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return samples;
}

void add_workload_matvec_command(CLI::App& workload);
void add_workload_keyswitch_command(CLI::App& workload);

}  // namespace fhelium::cli
