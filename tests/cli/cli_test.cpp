// `fhelium presets`, `info`, `ntt backends`, `ntt verify`: outputs and the
// one-line, exit-code-2 answers to bad input.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

fhelium::testing::CommandResult run_fhelium(const std::string& arguments) {
  return fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " " + arguments);
}

int line_count(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// Bad input: exit code 2 and exactly one line on stderr that names the problem.
void expect_bad_input(const std::string& arguments, const std::string& must_mention) {
  const auto result = run_fhelium(arguments);
  EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.err;
  EXPECT_EQ(line_count(result.err), 1) << arguments << "\n" << result.err;
  EXPECT_NE(result.err.find(must_mention), std::string::npos) << arguments << "\n" << result.err;
}

TEST(Cli, PresetsJsonListsTheSixteenPresets) {
  const auto result = run_fhelium("presets --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto list = nlohmann::json::parse(result.out);
  ASSERT_EQ(list.size(), 16u);
  const auto& default_preset = *std::find_if(list.begin(), list.end(), [](const auto& p) {
    return p["name"] == "slots32768-scale40-levels34-int64";
  });
  EXPECT_EQ(default_preset["dnum"], 10);
  EXPECT_EQ(default_preset["q_primes"].size(), 35u);
  EXPECT_EQ(default_preset["p_primes"].size(), 4u);
  EXPECT_LE(default_preset["log2_qp"].get<double>(), 1747.0);
  EXPECT_EQ(nlohmann::json::parse(run_fhelium("presets --json --all").out).size(), 21u);
}

TEST(Cli, BackendsMarksStrictRadixCompatibility) {
  const auto result = run_fhelium("ntt backends --preset slots65536-scale40-levels72-int64 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto out = nlohmann::json::parse(result.out);
  int compatible = 0;
  for (const auto& b : out["backends"]) {
    compatible += b["compatible"].get<bool>();
    if (!b["compatible"].get<bool>()) EXPECT_FALSE(b["reason"].get<std::string>().empty());
  }
  EXPECT_EQ(compatible, 4);  // logN 17: no strict radix
}

TEST(Cli, VerifyPassesOnCpuAndPrintsTheSeed) {
  const auto result =
      run_fhelium("ntt verify --preset test-slots2048-scale40-levels6-int64 --level 2 --seed 77");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("seed 77"), std::string::npos);
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 3 + 7);  // header, rule, 7 rows
  EXPECT_EQ(result.out.find("FAIL"), std::string::npos);
}

TEST(Cli, VerifyListsIncompatibleBackendsAsRejected) {
  const auto result = run_fhelium("ntt verify --preset test-slots1024-scale40-levels4-int64");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("rejected: strict radix 4"), std::string::npos) << result.out;
}

TEST(Cli, BadInputIsOneLineAndExitCodeTwo) {
  expect_bad_input("ntt verify --preset nope", "unknown preset 'nope'");
  expect_bad_input("ntt verify --backend radix3_compact", "unknown NTT backend 'radix3_compact'");
  expect_bad_input("ntt verify --backend radix8_compact", "incompatible");
  expect_bad_input("ntt verify --device gpu0", "invalid device 'gpu0'");
  expect_bad_input("ntt verify --device cuda:99", "cuda:99");
  expect_bad_input("ntt verify --level 99 --preset test-slots512-scale40-levels3-int64", "level 99");
  expect_bad_input("ntt backends --preset nope", "unknown preset");
  expect_bad_input("presets --bogus", "bogus");
  expect_bad_input("", "'fhelium' needs a subcommand (one of: presets, info, ntt, benchmark, workload, report)");
  expect_bad_input("ntt list", "unknown subcommand 'list' of 'fhelium ntt' (known: backends, verify, describe)");
  expect_bad_input("benchmark", "'fhelium benchmark' needs a subcommand (one of: recommend, rescore, profile)");
  expect_bad_input("workload matvex", "unknown subcommand 'matvex' of 'fhelium workload'");
}

TEST(Cli, InfoReportsTheBuild) {
  const auto result = run_fhelium("info --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto info = nlohmann::json::parse(result.out);
  EXPECT_EQ(info["git_commit"].get<std::string>().size(), 40u);
  EXPECT_TRUE(info.contains("cuda_built"));
  EXPECT_TRUE(info["devices"].is_array());
}

}  // namespace
