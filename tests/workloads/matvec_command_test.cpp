// `fhelium workload matvec` on the CPU as a process: a small lazy-moddown
// run within the tolerance with the build recorded, an explicit
// --baby-steps, and bad input refused (one line, exit code 2). The CUDA
// and --gpus runs are in gpu/ and multi_gpu_cli_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

using fhelium::testing::CommandResult;

CommandResult matvec(const std::string& args) {
  return fhelium::testing::run_command(std::string(FHELIUM_BINARY) +
                                       " workload matvec --device cpu --preset test-slots2048-scale40-levels6-int64"
                                       " --dim 16 --hoist 8 --runs 1 --warmup 0 " +
                                       args);
}

TEST(MatvecCommand, LazyModDownRunMeetsTheToleranceAndRecordsTheBuild) {
  const CommandResult bsgs = matvec("--method bsgs --policy lazy-moddown --json");
  ASSERT_EQ(bsgs.exit_code, 0) << bsgs.err;
  EXPECT_LE(nlohmann::json::parse(bsgs.out)["max_abs_error"].get<double>(), 5e-5);
  EXPECT_EQ(nlohmann::json::parse(bsgs.out)["baby_steps"], 8);  // the automatic lazy g at d = 16
  const CommandResult result = matvec("--policy lazy-moddown --workers 2 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json out = nlohmann::json::parse(result.out);
  EXPECT_EQ(out["policy"], "lazy-moddown");
  EXPECT_EQ(out["rotations"], 15);
  EXPECT_TRUE(out["baby_steps"].is_null());  // diagonal method
  EXPECT_GT(out["max_abs_error"].get<double>(), 0.0);
  EXPECT_LE(out["max_abs_error"].get<double>(), 5e-5);
  EXPECT_FALSE(out["build"]["git_commit"].get<std::string>().empty());
  EXPECT_TRUE(out["build"]["git_dirty"].is_boolean());
  EXPECT_EQ(out["run"], (nlohmann::json{{"seed", 1}, {"warmup", 0}, {"runs", 1}}));  // the default seed
  // QP-encoded diagonals: the plan counts them over the extended rows.
  EXPECT_NE(out["memory_plan"].get<std::string>().find("diagonals"), std::string::npos);
}

TEST(MatvecCommand, ExplicitBabyStepsAreUsedAndBadOnesAreOneLine) {
  const CommandResult run = matvec("--method bsgs --policy lazy-moddown --baby-steps 8 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out["baby_steps"], 8);
  EXPECT_EQ(out["rotations"], 7 + 1);  // 7 baby + 1 giant step
  EXPECT_LE(out["max_abs_error"].get<double>(), 5e-5);
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--method bsgs --baby-steps 0", "--baby-steps 0 must be in [2, 16]"},  // not the automatic g
           {"--method bsgs --baby-steps 1", "--baby-steps 1 must be in [2, 16]"},
           {"--method bsgs --baby-steps 32", "--baby-steps 32 must be in [2, 16]"},
           {"--baby-steps 4", "--baby-steps applies only to --method bsgs"},
           {"--policy loop --batch 4", "--batch applies only to --policy batch (got --policy loop)"}}) {
    const CommandResult bad = matvec(args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    EXPECT_NE(bad.err.find(expected), std::string::npos) << bad.err;
    EXPECT_TRUE(bad.out.empty()) << bad.out;
  }
}

TEST(MatvecCommand, UnknownPolicyIsOneLine) {
  const CommandResult result = matvec("--policy lazy");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_NE(result.err.find("unknown diagonal policy 'lazy' (batch, loop or lazy-moddown)"), std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

}  // namespace
