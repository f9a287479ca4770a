// The key switches on a GPU through the `fhelium` binary (label gpu, skipped
// with the reason when no GPU is seen): `fhelium workload keyswitch --device
// cuda:0` reports graph and eager timings with equal words within the error
// limit; `benchmark recommend ntt --suite application --workload keyswitch`
// ranks CUDA backends timed with CUDA events, and a backend with an injected
// fault is excluded, its input saved, while an all-faulty run exits 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/support/process.h"

namespace {

using fhelium::testing::CommandResult;
using fhelium::testing::read_text;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

CommandResult fhelium_run(const std::string& args) {
  return fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " " + args);
}

class ScratchDir {
 public:
  ScratchDir() {
    char pattern[] = "/tmp/fhelium-keyswitch-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(KeySwitchCudaCommand, WorkloadReportsGraphAndEagerWithEqualWords) {
  FHE_SKIP_WITHOUT_GPU();
  for (const char* graph : {"on", "off"}) {
    const CommandResult result = fhelium_run(std::string("workload keyswitch --device cuda:0 --preset ") + kPreset +
                                             " --levels 0,4 --step 3 --runs 3 --warmup 1 --json --graph " + graph);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const nlohmann::json out = nlohmann::json::parse(result.out);
    EXPECT_EQ(out["device"], "cuda:0");
    EXPECT_EQ(out["graph"], graph);
    EXPECT_NE(out["timing"].get<std::string>().find("CUDA events"), std::string::npos);
    EXPECT_NE(out["memory_plan"].get<std::string>().find("evaluator workspaces"), std::string::npos);
    ASSERT_EQ(out["operations"].size(), 4u);
    for (const auto& op : out["operations"]) {
      EXPECT_TRUE(op["graph_equals_eager"].get<bool>()) << op.dump();
      EXPECT_EQ(op["graph_samples_ms"].size(), 3u);
      EXPECT_EQ(op["eager_samples_ms"].size(), 3u);
      EXPECT_EQ(op["samples_ms"], std::string(graph) == "on" ? op["graph_samples_ms"] : op["eager_samples_ms"]);
      EXPECT_GT(op["median_ms"].get<double>(), 0.0);
      EXPECT_GT(op["max_abs_error"].get<double>(), 0.0);
      EXPECT_LE(op["max_abs_error"].get<double>(), 1e-4);
    }
  }
}

std::string recommend_args(const std::filesystem::path& output, const std::string& extra) {
  return std::string("benchmark recommend ntt --suite application --workload keyswitch --device cuda:0 --preset ") +
         kPreset + " --levels 0,4 --runs 3 --repetitions 2 --warmup 1 --seed 8 --output " + output.string() +
         " --backend radix2_compact_group8_smem8 --backend radix4_compact --backend radix16_compact " + extra;
}

TEST(KeySwitchCudaCommand, ApplicationSuiteExcludesAnInjectedFault) {
  FHE_SKIP_WITHOUT_GPU();
  ScratchDir dir;
  const auto output = dir.path() / "keyswitch.json";
  const CommandResult result = fhelium_run(recommend_args(output, "--inject-fault radix4_compact"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("radix4_compact failed the correctness gate and was not ranked"), std::string::npos)
      << result.err;
  const nlohmann::json doc = nlohmann::json::parse(read_text(output));
  const auto& meta = doc["metadata"];
  EXPECT_EQ(meta["timer"], "cuda_events");
  EXPECT_EQ(meta["workload"]["graph"], "on");
  EXPECT_EQ(meta["workload"]["injected_faults"], nlohmann::json::array({"radix4_compact"}));
  EXPECT_NE(meta["timed_boundary"]["synchronisation"].get<std::string>().find("evaluator's stream"),
            std::string::npos);
  EXPECT_NE(meta["timed_boundary"]["includes"][0].get<std::string>().find("one replay of the captured CUDA graph"),
            std::string::npos);
  ASSERT_EQ(doc["correctness"].size(), 3u);
  for (const auto& c : doc["correctness"]) {
    const bool faulty = c["backend"] == "radix4_compact";
    EXPECT_EQ(c["passed"].get<bool>(), !faulty) << c.dump();
    EXPECT_EQ(c["checks"].contains("injected_fault"), faulty);
    ASSERT_FALSE(c["checks"]["max_abs_error"].empty()) << c.dump();
    for (const auto& [op, error] : c["checks"]["max_abs_error"].items()) {
      if (faulty) EXPECT_GT(error.get<double>(), 1.0) << op;
      else EXPECT_LE(error.get<double>(), 1e-4) << op;
    }
  }
  EXPECT_EQ(doc["rows"].size(), 2u);
  for (const auto& row : doc["rows"]) EXPECT_NE(row["backend"], "radix4_compact");
  EXPECT_EQ(doc["evidence"].size(), 2u * 4u * 2u);
  for (const auto& e : doc["evidence"]) EXPECT_NE(e["backend"], "radix4_compact");
  EXPECT_NE(doc["recommendation"]["recommended_backend"], "radix4_compact");
  const auto failing = dir.path() / "keyswitch.failing-radix4_compact.json";
  ASSERT_TRUE(std::filesystem::exists(failing));
  const nlohmann::json saved = nlohmann::json::parse(read_text(failing));
  EXPECT_EQ(saved["device"], "cuda:0");
  EXPECT_EQ(saved["seed"], 8);
  EXPECT_EQ(saved["workload"]["levels"], nlohmann::json::array({0, 4}));
  EXPECT_TRUE(saved["checks"]["details"]["rotate@level4"].contains("worst_slot"));
}

TEST(KeySwitchCudaCommand, AllFaultyCandidatesExitOne) {
  FHE_SKIP_WITHOUT_GPU();
  ScratchDir dir;
  const auto output = dir.path() / "keyswitch.json";
  const CommandResult result = fhelium_run(
      recommend_args(output, "--inject-fault radix2_compact_group8_smem8 --inject-fault radix4_compact "
                             "--inject-fault radix16_compact"));
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("no backend passed the correctness gate"), std::string::npos) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(read_text(output));
  EXPECT_TRUE(doc["rows"].empty());
  EXPECT_TRUE(doc["recommendation"].is_null());
  EXPECT_TRUE(doc["evidence"].empty());
}

}  // namespace
