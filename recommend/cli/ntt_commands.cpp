// `fhelium ntt backends` and `fhelium ntt verify`.
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "fhe/ntt/verify.h"
#include "recommend/cli/commands.h"
#include "recommend/text_table.h"

namespace fhelium::cli {
namespace {

std::string describe_passes(const fhe::ntt::NttSchedule& schedule) {
  std::string text;
  for (const fhe::ntt::NttPass& pass : schedule.passes) {
    text += (text.empty() ? "" : " ");
    text += pass.kind == fhe::ntt::PassKind::shared_region ? "S" : "G";
    text += std::to_string(pass.stage_count);
  }
  return text;
}

void add_backends_command(CLI::App& ntt) {
  auto* command = ntt.add_subcommand("backends", "List every NTT backend and its compatibility");
  auto preset_name = std::make_shared<std::string>(fhe::kDefaultPresetName);
  auto json = std::make_shared<bool>(false);
  command->add_option("--preset", *preset_name, "Preset name")->capture_default_str();
  command->add_flag("--json", *json, "Print JSON");
  command->callback([preset_name, json] {
    const fhe::Preset& preset = fhe::preset_by_name(*preset_name);
    nlohmann::json list = nlohmann::json::array();
    TextTable table({"backend", "compatible", "passes (G=global, S=shared)", "reason"});
    for (const fhe::ntt::BackendInfo& backend : fhe::ntt::all_backends()) {
      const fhe::ntt::Compatibility check = fhe::ntt::compatibility(backend, preset.log_n);
      nlohmann::json entry = {{"backend", backend.name},
                              {"compatible", check.compatible},
                              {"structure", backend.structure}};
      std::string passes;
      if (check.compatible) {
        const auto schedule = fhe::ntt::make_schedule(backend, preset.log_n);
        passes = describe_passes(schedule);
        entry["passes"] = schedule.passes.size();
      } else {
        entry["reason"] = check.reason;
      }
      list.push_back(entry);
      table.add_row({std::string(backend.name), check.compatible ? "true" : "false", passes,
                     check.reason});
    }
    if (*json) {
      std::cout << nlohmann::json{{"preset", preset.name}, {"log_n", preset.log_n},
                                  {"backends", list}}.dump(2)
                << '\n';
    } else {
      std::cout << "preset " << preset.name << " (logN " << preset.log_n << ")\n";
      table.print(std::cout);
    }
  });
}

struct VerifyOptions {
  std::string preset = std::string(fhe::kDefaultPresetName);
  std::string device = "cpu";
  std::vector<std::string> backends;
  int level = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
};

void run_verify(const VerifyOptions& options) {
  const fhe::Preset& preset = fhe::preset_by_name(options.preset);
  const fhe::DeviceSpec device = fhe::parse_device(options.device);
  const fhe::ntt::RowRange rows = fhe::ntt::level_rows(preset, options.level);
  // Explicit names must exist and be compatible; the default is every backend.
  std::vector<const fhe::ntt::BackendInfo*> requested;
  for (const std::string& name : options.backends) {
    const fhe::ntt::BackendInfo& backend = fhe::ntt::backend_info(name);
    const fhe::ntt::Compatibility check = fhe::ntt::compatibility(backend, preset.log_n);
    if (!check.compatible) {
      throw fhe::InvalidArgument("backend " + name + " is incompatible with preset " +
                                 preset.name + ": " + check.reason);
    }
    requested.push_back(&backend);
  }
  if (requested.empty()) {
    for (const auto& backend : fhe::ntt::all_backends()) requested.push_back(&backend);
  }
  fhe::require_device(device);

  const std::uint64_t seed = options.seed_given ? options.seed : std::random_device{}();
  const std::vector<std::uint64_t> moduli = preset.qp_primes();
  std::cout << "verify: preset " << preset.name << ", level " << options.level << " (rows "
            << rows.first << ".." << rows.first + rows.count - 1 << ", " << rows.count << " x "
            << preset.n() << "), device " << device.str() << ", seed " << seed << "\n";
  auto oracle = fhe::ntt::make_plan(fhe::ntt::kOracleBackend, {fhe::DeviceKind::cpu, 0},
                                    preset.log_n, moduli, preset.word);
  const std::vector<std::uint64_t> input = fhe::ntt::random_rows(*oracle, rows, seed);

  TextTable table({"backend", "status", "forward", "inverse", "roundtrip", "mismatched words"});
  bool all_passed = true;
  for (const fhe::ntt::BackendInfo* backend : requested) {
    const fhe::ntt::Compatibility check = fhe::ntt::compatibility(*backend, preset.log_n);
    if (!check.compatible) {
      table.add_row({std::string(backend->name), "rejected: " + check.reason});
      continue;
    }
    auto plan = fhe::ntt::make_plan(backend->name, device, preset.log_n, moduli, preset.word);
    const fhe::ntt::VerifyResult result =
        fhe::ntt::verify_against_oracle(*plan, *oracle, input, rows);
    all_passed = all_passed && result.passed();
    auto verdict = [](bool ok) { return std::string(ok ? "exact" : "MISMATCH"); };
    std::string mismatches = std::to_string(result.mismatched_words);
    if (result.mismatched_words > 0) {
      mismatches += " (first: row " + std::to_string(result.first_mismatch_row) + ", index " +
                    std::to_string(result.first_mismatch_index) + ")";
    }
    table.add_row({std::string(backend->name), result.passed() ? "pass" : "FAIL",
                   verdict(result.forward_exact), verdict(result.inverse_exact),
                   verdict(result.roundtrip_exact), mismatches});
  }
  table.print(std::cout);
  if (!all_passed) {
    std::cerr << "fhelium: verification failed: a backend differs from " << fhe::ntt::kOracleBackend
              << " (seed " << seed << ")\n";
    throw CommandExit{1};
  }
}

void add_verify_command(CLI::App& ntt) {
  auto* command =
      ntt.add_subcommand("verify", "Check backends bit-exactly against the radix2_indexed oracle");
  auto options = std::make_shared<VerifyOptions>();
  command->add_option("--preset", options->preset, "Preset name")->capture_default_str();
  command->add_option("--device", options->device, "cpu or cuda:N")->capture_default_str();
  command->add_option("--backend", options->backends, "Backend to check (repeatable; default all)");
  command->add_option("--level", options->level, "Use the active rows of this level")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Seed of the random rows (default: random, printed)");
  command->callback([options, command] {
    options->seed_given = command->count("--seed") > 0;
    run_verify(*options);
  });
}

}  // namespace

void add_ntt_commands(CLI::App& app) {
  auto* ntt = app.add_subcommand("ntt", "NTT backends: backends (their list), verify, describe");
  ntt->require_subcommand(1);
  add_backends_command(*ntt);
  add_verify_command(*ntt);
  add_ntt_describe_command(*ntt);
}

}  // namespace fhelium::cli
