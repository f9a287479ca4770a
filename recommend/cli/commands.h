// Subcommands of `fhelium`; each file registers its own on the app.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace fhelium::cli {

void add_presets_command(CLI::App& app);
void add_info_command(CLI::App& app);
// `ntt` with backends and verify; calls add_ntt_describe_command on it.
void add_ntt_commands(CLI::App& app);
void add_ntt_describe_command(CLI::App& ntt);

// `benchmark` with `recommend ntt` and `rescore`; `argv` is recorded in evidence.
void add_benchmark_commands(CLI::App& app, const std::vector<std::string>& argv);
void add_recommend_command(CLI::App& benchmark, const std::vector<std::string>& argv);
void add_rescore_command(CLI::App& benchmark, const std::vector<std::string>& argv);
// `benchmark profile ntt`, and the hidden `ntt run-once` it runs under ncu.
void add_profile_command(CLI::App& benchmark, const std::vector<std::string>& argv);
void add_ntt_run_once_command(CLI::App& ntt);

void add_report_command(CLI::App& app, const std::vector<std::string>& argv);  // `report`
// `workload` with `matvec` and `keyswitch`.
void add_workload_commands(CLI::App& app);

// Every integer option of `app` and its subcommands (CLI11's INT and UINT
// types) takes only plain decimal numbers that fit 64 bits; call after all
// commands are added.
void require_decimal_integers(CLI::App& app);

// Thrown by a command to end with a given exit status after printing its
// own report (for example 1 when verification found a mismatch).
struct CommandExit {
  int code;
};

}  // namespace fhelium::cli
