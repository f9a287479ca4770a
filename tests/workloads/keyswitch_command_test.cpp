// `fhelium workload keyswitch` run as a process: bad input is one line on
// stderr and exit code 2 before any work; a small CPU run prints every
// operation within the error limit (the CUDA run is in gpu/).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

using fhelium::testing::CommandResult;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

CommandResult keyswitch(const std::string& args) {
  return fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " workload keyswitch --preset " + kPreset +
                                       " --runs 1 --warmup 0 " + args);
}

void expect_rejected(const std::string& args, const std::string& expected) {
  const CommandResult result = keyswitch(args);
  EXPECT_EQ(result.exit_code, 2) << args << "\n" << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.rfind("fhelium: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(expected), std::string::npos) << args << "\n" << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(KeySwitchCommand, BadInputIsOneLineAndExitCodeTwo) {
  expect_rejected("--levels 0,x", "invalid level list '0,x' (expected comma-separated integers");
  expect_rejected("--levels 0,,3", "invalid level list '0,,3'");
  expect_rejected("--levels ''", "invalid level list ''");
  expect_rejected("--levels 0,6", "level 6 is outside [0, 5] for a key-switch workload");
  expect_rejected("--levels -1", "level -1 is outside [0, 5]");
  expect_rejected("--step 2048", "rotation step 2048 is a multiple of the 2048 slots");
  expect_rejected("--step 2049", "rotation step 2049 is outside the 2048 slots (it acts as 1)");
  expect_rejected("--step -4097", "rotation step -4097 is outside the 2048 slots (it acts as -1)");
  expect_rejected("--graph on --device cpu", "--graph on needs a CUDA device");
  expect_rejected("--graph maybe", "--graph must be 'on' or 'off', got 'maybe'");
  expect_rejected("--device cuda:99", "cuda:99");
  expect_rejected("--backend radix3_compact", "unknown NTT backend 'radix3_compact'");
}

TEST(KeySwitchCommand, SmallCpuRunReportsEveryOperation) {
  const CommandResult result = keyswitch("--device cpu --levels 3,0 --step -2 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json out = nlohmann::json::parse(result.out);
  EXPECT_EQ(out["workload"], "keyswitch");
  EXPECT_EQ(out["device"], "cpu");
  EXPECT_EQ(out["rotation_step"], -2);
  EXPECT_FALSE(out.contains("graph"));
  ASSERT_EQ(out["operations"].size(), 4u);
  EXPECT_EQ(out["operations"][3]["operation"], "rotate@level3");
  EXPECT_EQ(out["operations"][3]["active_q_rows"], 4);  // 7 Q rows at level 0
  // Digits of |P| = 2 scale primes, the base prime alone: ids {0, 1}, {2, 3},
  // {4, 5}, {6}; ids 3..6 at level 3 keep the last three.
  EXPECT_EQ(out["operations"][0]["digits"], 4);
  EXPECT_EQ(out["operations"][3]["digits"], 3);
  EXPECT_EQ(out["operations"][3]["p_rows"], 2);
  for (const auto& op : out["operations"]) {
    EXPECT_EQ(op["samples_ms"].size(), 1u);
    EXPECT_GT(op["max_abs_error"].get<double>(), 0.0);
    EXPECT_LE(op["max_abs_error"].get<double>(), 1e-4);
  }
  EXPECT_NE(out["memory_plan"].get<std::string>().find("keys "), std::string::npos);
}

}  // namespace
