// Shared by the profile tests: the ncu raw-page fixture (three kernels of
// one forward transform, written in ncu's --csv --page raw layout) and the
// counters read from it.
#pragma once

#include <filesystem>
#include <string>

#include "recommend/ntt_profile.h"
#include "recommend/ntt_profile_runner.h"
#include "tests/support/process.h"

namespace fhelium::test {

inline std::filesystem::path raw_page_fixture() {
  return std::filesystem::path(FHELIUM_TEST_DATA_DIR) / "profile_ncu_raw_page.csv";
}

inline std::vector<KernelCounters> fixture_kernels() {
  return kernel_counters(parse_ncu_raw_page(fhelium::testing::read_text(raw_page_fixture())));
}

// The fixture's totals, from its rows (durations 12288 + 12544 + 24576 ns).
inline constexpr double kFixtureDurationNs = 49408;
inline constexpr double kFixtureDramBytes = 40894464.0 + 40960000.0 + 81788928.0;

// What describe gives for the fixture's transform: two global passes and the
// shared region (logN 16, 39 rows, as NttPlan::describe lists them on an H200).
inline std::vector<KernelCounters> described_kernels() {
  fhe::ntt::LaunchDescription global;
  global.kernel = "ntt_global_pass<u64,g4,forward>";
  global.launch_count = 2;
  global.grid[0] = 16, global.grid[1] = 39, global.grid[2] = 1;
  global.block[0] = 256, global.block[1] = global.block[2] = 1;
  global.registers_per_thread = 124;
  global.max_blocks_per_sm = 2;
  global.modelled_dram_bytes = 81948048;
  fhe::ntt::LaunchDescription region = global;
  region.kernel = "ntt_shared_region<u64,s8,forward>";
  region.launch_count = 1;
  region.registers_per_thread = 116;
  region.dynamic_shared_bytes = 34816;
  region.modelled_dram_bytes = 81629184;
  return kernel_counters(std::vector<fhe::ntt::LaunchDescription>{global, region});
}

// One run per backend and direction: describe's launches, and the fixture's
// counters when ncu `measured` them.
inline std::vector<ProfiledRun> fixture_runs(const std::vector<std::string>& backends, bool measured) {
  std::vector<ProfiledRun> runs;
  for (const auto& backend : backends)
    for (const char* direction : {"forward", "inverse"}) {
      ProfiledRun run{backend, direction, described_kernels(), {}};
      if (measured) {
        run.ncu.ok = true;
        run.ncu.kernels = fixture_kernels();
        run.ncu.command = {"ncu", "--clock-control", "none", "fhelium", "ntt", "run-once", "--backend", backend};
      }
      runs.push_back(std::move(run));
    }
  return runs;
}

// A profile document as `benchmark profile ntt --json` writes it, with the
// given provenance (the fixture's counters, or describe's figures and `failure`).
inline nlohmann::json fixture_profile_document(const std::vector<std::string>& backends, const std::string& failure,
                                               const nlohmann::json& provenance, int level = 0) {
  ProfileRunFacts facts;
  facts.request.backends = backends;
  facts.request.level = level;
  facts.dram_peak = {{"buffer_bytes", 1073741824}, {"samples_ms", {0.55, 0.54}}, {"peak_gb_per_s", 4800.0}};
  facts.peak_gb_per_s = 4800.0;
  facts.ncu = "/usr/local/cuda/bin/ncu";
  facts.ncu_version = "Version 2025.3.1.0 (build 36398880) (public-release)";
  facts.runs = fixture_runs(backends, failure.empty());
  facts.ncu_failure = failure;
  facts.provenance = provenance;
  return profile_document(facts);
}

}  // namespace fhelium::test
