// `fhelium benchmark profile ntt` on a GPU (label gpu; skips without one):
// the describe fallback when ncu cannot run, and the real Nsight Compute
// profile, each checked against `fhelium ntt describe` of the same plans.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "recommend/ntt_profile_runner.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/recommend/test_support.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

using fhelium::testing::read_text;
using fhelium::testing::run_command;

const std::string kPreset = "test-slots1024-scale40-levels4-int64";
const std::vector<std::string> kBackends = {"radix2_compact_group8_smem8", "radix2_compact_group4_smem8"};

class ProfileGpu : public ::testing::Test {
 protected:
  test::TempDir dir_;
  std::filesystem::path json_ = dir_.path() / "profile.json";

  std::string profile_args(const std::string& extra = "") {
    std::string args = " benchmark profile ntt --preset " + kPreset + " --level 1 --device cuda:0 --json " +
                       json_.string() + " " + extra;
    for (const auto& b : kBackends) args += " --backend " + b;
    return args;
  }
  // `ntt describe --json` of one backend: the static figures a profile must agree with.
  nlohmann::json describe(const std::string& backend) {
    const auto result = run_command(std::string(FHELIUM_BINARY) + " ntt describe --json --device cuda:0 --level 1 "
                                    "--preset " + kPreset + " --backend " + backend);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return nlohmann::json::parse(result.out);
  }
  // Per profile: its launches and registers are describe's.
  void expect_shapes_match_describe(const nlohmann::json& document) {
    ASSERT_EQ(document["profiles"].size(), 2 * kBackends.size());
    for (const auto& p : document["profiles"]) {
      const auto described = describe(p["backend"].get<std::string>())[p["direction"].get<std::string>()];
      EXPECT_EQ(p["launches"].get<double>(), described["launch_count"].get<double>()) << p.dump();
      std::vector<double> registers;
      for (const auto& launch : described["launches"]) {
        const double r = launch["registers_per_thread"].get<double>();
        if (std::find(registers.begin(), registers.end(), r) == registers.end()) registers.push_back(r);
      }
      EXPECT_EQ(p["registers_per_thread"].get<std::vector<double>>(), registers) << p["backend"];
    }
    EXPECT_GT(document["dram_peak"]["peak_gb_per_s"].get<double>(), 100.0);
    EXPECT_EQ(document["dram_peak"]["buffer_bytes"], std::size_t{1} << 30);
    EXPECT_EQ(document["provenance"]["device"]["spec"], "cuda:0");
  }
};

TEST_F(ProfileGpu, WithoutNcuTheDescribeFiguresAreShownAndSaidSo) {
  FHE_SKIP_WITHOUT_GPU();
  const auto result = run_command("FHELIUM_NCU=" + (dir_.path() / "no-ncu").string() + " " +
                                  std::string(FHELIUM_BINARY) + profile_args());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = nlohmann::json::parse(read_text(json_));
  EXPECT_EQ(document["source"], "describe (ncu unavailable: " + kBackends[0] + " forward: cannot execute " +
                                    (dir_.path() / "no-ncu").string() + ")");
  EXPECT_NE(result.out.find("WARNING: NOT MEASURED."), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("fhelium: warning: describe (ncu unavailable"), std::string::npos) << result.err;
  for (const auto& p : document["profiles"]) {
    EXPECT_FALSE(p["measured"].get<bool>());
    EXPECT_TRUE(p["duration_us"].is_null());
    EXPECT_GT(p["dram_bytes"].get<double>(), 0.0);  // modelled
  }
  expect_shapes_match_describe(document);
}

TEST_F(ProfileGpu, NsightComputeCountersOfOneTransform) {
  FHE_SKIP_WITHOUT_GPU();
  if (ncu_to_use().empty())
    GTEST_SKIP() << "no ncu: neither $FHELIUM_NCU, PATH, /usr/local/cuda/bin nor /opt/nvidia/nsight-compute";
  const auto raw = dir_.path() / "raw";
  std::filesystem::create_directory(raw);
  const auto result = run_command(std::string(FHELIUM_BINARY) + profile_args("--raw-dir " + raw.string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = nlohmann::json::parse(read_text(json_));
  const std::string source = document["source"];
  if (source.find("ERR_NVGPUCTRPERM") != std::string::npos)
    GTEST_SKIP() << "this machine does not allow reading GPU performance counters: " << source;
  ASSERT_EQ(source, "ncu") << result.out;
  EXPECT_NE(document["ncu"]["version"].get<std::string>().find("Version"), std::string::npos);
  expect_shapes_match_describe(document);
  for (const auto& p : document["profiles"]) {
    SCOPED_TRACE(p["backend"].get<std::string>() + " " + p["direction"].get<std::string>());
    EXPECT_TRUE(p["measured"].get<bool>());
    EXPECT_GT(p["duration_us"].get<double>(), 0.0);
    EXPECT_GT(p["dram_bytes"].get<double>(), 0.0);
    EXPECT_GT(p["l2_sectors"].get<double>(), 0.0);
    EXPECT_GT(p["achieved_occupancy_pct"].get<double>(), 0.0);
    EXPECT_LE(p["achieved_occupancy_pct"].get<double>(), 100.0);
    EXPECT_FALSE(p["theoretical_blocks_per_sm"].empty());
    ASSERT_FALSE(p["top_stalls"].empty());
    double shares = 0;
    for (const auto& s : p["top_stalls"]) shares += s["share_pct"].get<double>();
    EXPECT_LE(shares, 100.0 + 1e-9);
    EXPECT_TRUE(std::filesystem::exists(raw / (p["backend"].get<std::string>() + "-" +
                                               p["direction"].get<std::string>() + ".ncu-rep")));
  }
}

}  // namespace
}  // namespace fhelium
