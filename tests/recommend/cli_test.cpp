// The built `fhelium` binary: bad input gives exit code 2, one line on
// stderr and no output file; a small CPU run and a rescore succeed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "tests/recommend/test_support.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

using Outcome = fhelium::testing::CommandResult;
using fhelium::testing::read_text;

class RecommendCli : public ::testing::Test {
 protected:
  test::TempDir dir_;
  std::filesystem::path output_ = dir_.path() / "out.json";

  Outcome run(const std::string& args) {
    return fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " " + args);
  }

  // The recommend command at a small CPU preset; `overrides` replaces
  // defaults (CLI11 rejects a repeated single-value option), `extra` adds.
  std::string recommend_args(std::map<std::string, std::string> overrides, const std::string& extra = "") {
    std::map<std::string, std::string> options = {{"--preset", "test-slots1024-scale40-levels4-int64"},
                                                  {"--device", "cpu"},
                                                  {"--runs", "1"},
                                                  {"--repetitions", "1"},
                                                  {"--warmup", "0"},
                                                  {"--output", output_.string()}};
    for (auto& [key, value] : overrides) options[key] = value;
    std::string args = "benchmark recommend ntt";
    for (const auto& [key, value] : options) args += " " + key + " " + value;
    return args + " " + extra;
  }

  // Bad input: exit 2, exactly one line on stderr naming `expected`, no file.
  void expect_rejected(const std::string& args, const std::string& expected) {
    const Outcome outcome = run(args);
    EXPECT_EQ(outcome.exit_code, 2) << args << "\n" << outcome.err;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
    EXPECT_EQ(outcome.err.rfind("fhelium: error: ", 0), 0u) << outcome.err;
    EXPECT_NE(outcome.err.find(expected), std::string::npos) << outcome.err;
    EXPECT_TRUE(outcome.out.empty()) << outcome.out;
    EXPECT_TRUE(dir_.entries().empty()) << args;
  }
};

TEST_F(RecommendCli, BadNamesAreRejected) {
  expect_rejected(recommend_args({{"--suite", "apps"}}),
                  "unknown suite 'apps' (known: kernel, ckks-primitive, application)");
  expect_rejected(recommend_args({{"--preset", "slots1-scale1"}}), "unknown preset 'slots1-scale1'");
  expect_rejected(recommend_args({}, "--backend radix3_compact --backend radix2_indexed"),
                  "unknown NTT backend 'radix3_compact'");
  expect_rejected(recommend_args({{"--device", "gpu0"}}), "invalid device 'gpu0'");
  expect_rejected(recommend_args({{"--device", "cuda:99"}}), "cuda:99");
  expect_rejected(recommend_args({{"--policy", "lenient"}}), "unknown policy 'lenient'");
  expect_rejected(recommend_args({{"--l2-flush", "maybe"}}), "--l2-flush must be 'on' or 'off'");
  expect_rejected(recommend_args({{"--weights", "rotate_with_key=2"}}), "unknown operation 'rotate_with_key'");
  expect_rejected(recommend_args({{"--level", "5"}}), "--level 5 is outside 0..4");
}

TEST_F(RecommendCli, TooFewBackendsAndBadCountsAreRejected) {
  expect_rejected(recommend_args({}, "--backend radix2_indexed"), "at least 2 unique compatible backends");
  expect_rejected(recommend_args({}, "--backend radix2_indexed --backend radix2_indexed"), "at least 2 unique");
  // logN 11: strict radix 4 is incompatible; named, it is bad input.
  expect_rejected(recommend_args({}, "--backend radix2_indexed --backend radix4_compact --backend radix8_compact"),
                  "backend radix4_compact does not fit preset test-slots1024-scale40-levels4-int64");
  expect_rejected(recommend_args({{"--device", "''"}}), "invalid device ''");
  expect_rejected(recommend_args({{"--output", "''"}}), "output path is empty");
  // Integers are plain decimals within 64 bits: no wrap-around, octal or hexadecimal.
  for (const std::string& seed : {"-1", "99999999999999999999999", "''", "0x10", "010"})
    expect_rejected(recommend_args({{"--seed", seed}}), "--seed: '");
  expect_rejected(recommend_args({{"--runs", "010"}}), "--runs: '010' is not a plain decimal number");
  expect_rejected(recommend_args({{"--runs", "0"}}), "--runs must be >= 1");
  expect_rejected(recommend_args({{"--repetitions", "0"}}), "--repetitions must be >= 1");
  expect_rejected(recommend_args({{"--warmup", "-1"}}), "--warmup must be >= 0");
}

TEST_F(RecommendCli, BadApplicationInputIsRejected) {
  auto matvec = [&](std::map<std::string, std::string> extra) {
    extra.emplace("--suite", "application");
    extra.emplace("--workload", "matvec");
    return recommend_args(extra);
  };
  expect_rejected(recommend_args({{"--suite", "application"}}), "--suite application needs --workload");
  expect_rejected(matvec({{"--workload", "dense"}}), "unknown workload 'dense' (known: matvec, keyswitch)");
  expect_rejected(matvec({{"--dim", "12"}}), "matvec dimension 12 must be a power of two");
  expect_rejected(matvec({{"--hoist", "0"}}), "--hoist must be at least 1");
  expect_rejected(matvec({{"--method", "bsgs"}, {"--baby-steps", "129"}}),
                  "--baby-steps 129 must be in [2, 128]");
  expect_rejected(matvec({{"--method", "bsgs"}, {"--baby-steps", "0"}}), "--baby-steps 0 must be in [2, 128]");
  expect_rejected(matvec({{"--baby-steps", "8"}}), "--baby-steps applies only to --method bsgs");
  expect_rejected(matvec({{"--workers", "0"}}), "--workers must be at least 1");
  expect_rejected(matvec({{"--diagonal-policy", "loop"}, {"--batch", "4"}}),
                  "--batch applies only to --diagonal-policy batch (got --diagonal-policy loop)");
  expect_rejected(matvec({{"--method", "dense"}}), "unknown matvec method 'dense'");
  expect_rejected(matvec({{"--diagonal-policy", "stream"}}), "unknown diagonal policy 'stream'");
  expect_rejected(matvec({{"--graph", "on"}}), "--graph on needs a CUDA device");
  expect_rejected(matvec({{"--levels", "0,1"}}), "--levels does not apply to --workload matvec");
  expect_rejected(matvec({{"--workload", "keyswitch"}, {"--levels", "0,4"}}), "level 4 is outside [0, 3]");
  expect_rejected(matvec({{"--workload", "keyswitch"}, {"--dim", "16"}}),
                  "--dim does not apply to --workload keyswitch");
  expect_rejected(recommend_args({{"--workload", "matvec"}}), "--workload applies only to --suite application");
  expect_rejected(recommend_args({{"--hoist", "4"}}), "--hoist applies only to --suite application");
  expect_rejected(recommend_args({{"--baby-steps", "4"}}), "--baby-steps applies only to --suite application");
  expect_rejected(matvec({{"--workload", "keyswitch"}, {"--baby-steps", "4"}}),
                  "--baby-steps does not apply to --workload keyswitch");
  // The matvec runs on CUDA; a GPU that is not there is refused by require_device.
  expect_rejected(matvec({{"--device", "cuda:99"}}), "cuda:99");
  expect_rejected(matvec({{"--workload", "keyswitch"}, {"--device", "cuda:99"}}), "cuda:99");
  expect_rejected(matvec({{"--workload", "keyswitch"}, {"--graph", "on"}}), "--graph on needs a CUDA device");
  expect_rejected(matvec({{"--inject-fault", "radix3_compact"}}), "unknown NTT backend 'radix3_compact'");
  expect_rejected(recommend_args({{"--inject-fault", "radix2_indexed"}}),
                  "--inject-fault applies only to --suite application");
  // About 2 TiB of Galois keys per backend: refused before anything is built.
  expect_rejected(matvec({{"--preset", "slots65536-scale40-levels72-int64"}, {"--dim", "1024"}}),
                  "backends are held at once) has");
}

TEST_F(RecommendCli, SmallKeySwitchApplicationRun) {
  const Outcome outcome = run(
      recommend_args({{"--suite", "application"}, {"--workload", "keyswitch"}, {"--levels", "2,0"},
                      {"--step", "-3"}, {"--seed", "4"}},
                     "--backend radix2_indexed --backend radix2_compact_group8_smem8"));
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("rotate@level2 ms"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("recommended: "), std::string::npos) << outcome.out;
  const nlohmann::json doc = nlohmann::json::parse(read_text(output_));
  EXPECT_EQ(doc["metadata"]["suite"], "application");
  EXPECT_EQ(doc["metadata"]["operations"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"relinearize@level0", "rotate@level0", "relinearize@level2", "rotate@level2"}));
  EXPECT_EQ(doc["metadata"]["workload"]["rotation_step"], -3);
  EXPECT_EQ(doc["evidence"].size(), 2u * 4u);
  ASSERT_EQ(doc["correctness"].size(), 2u);
  for (const auto& c : doc["correctness"]) EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
}

// The hidden, test-only --inject-fault: a wrong candidate is warned about,
// excluded and its input saved (exit 0 while another passes); with every
// candidate wrong there is no recommendation and the exit code is 1.
TEST_F(RecommendCli, InjectedFaultsReachTheExitCode) {
  const std::string keyswitch = recommend_args(
      {{"--suite", "application"}, {"--workload", "keyswitch"}, {"--levels", "0,2"}, {"--seed", "5"}},
      "--backend radix2_indexed --backend radix2_compact_group8_smem8");
  const Outcome one = run(keyswitch + " --inject-fault radix2_compact_group8_smem8");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.err.find("radix2_compact_group8_smem8 failed the correctness gate and was not ranked"),
            std::string::npos)
      << one.err;
  EXPECT_NE(one.out.find("recommended: radix2_indexed"), std::string::npos) << one.out;
  EXPECT_EQ(dir_.entries(), (std::vector<std::string>{"out.failing-radix2_compact_group8_smem8.json", "out.json"}));

  const Outcome all = run(keyswitch + " --inject-fault radix2_compact_group8_smem8 --inject-fault radix2_indexed");
  EXPECT_EQ(all.exit_code, 1) << all.err;
  EXPECT_NE(all.err.find("no backend passed the correctness gate"), std::string::npos) << all.err;
  const nlohmann::json doc = nlohmann::json::parse(read_text(output_));
  EXPECT_TRUE(doc["recommendation"].is_null());
  EXPECT_EQ(doc["metadata"]["workload"]["injected_faults"].size(), 2u);
  // Hidden: not offered in the help text.
  EXPECT_EQ(run("benchmark recommend ntt --help").out.find("inject"), std::string::npos);
}

TEST_F(RecommendCli, UnwritableOutputsAreRejected) {
  expect_rejected(recommend_args({{"--output", (dir_.path() / "missing" / "out.json").string()}}),
                  "does not exist");
  const auto file = dir_.path() / "file";
  std::ofstream(file) << "x";
  const Outcome outcome = run(recommend_args({{"--output", (file / "out.json").string()}}));
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("is not a directory"), std::string::npos) << outcome.err;
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"file"});
}

TEST_F(RecommendCli, RescoreRejectsInvalidEvidence) {
  const auto not_json = dir_.path() / "bad.json";
  std::ofstream(not_json) << "{ not json";
  const auto no_evidence = dir_.path() / "empty.json";
  std::ofstream(no_evidence) << R"({"metadata": {"device": "cpu"}})";
  for (const auto& [file, expected] :
       std::vector<std::pair<std::string, std::string>>{{not_json.string(), "is not valid JSON"},
                                                        {no_evidence.string(), "lacks 'evidence'"},
                                                        {(dir_.path() / "none.json").string(), "cannot read"},
                                                        {dir_.path().string(), "a directory"}}) {
    const Outcome outcome = run("benchmark rescore " + file + " --output " + output_.string());
    EXPECT_EQ(outcome.exit_code, 2) << file;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
    EXPECT_NE(outcome.err.find(expected), std::string::npos) << outcome.err;
    EXPECT_NE(outcome.err.find(file), std::string::npos) << outcome.err;  // each error names its file
    EXPECT_FALSE(std::filesystem::exists(output_));
  }
}

TEST_F(RecommendCli, SmallRunThenRescoreWithWeights) {
  const Outcome run_outcome =
      run("benchmark recommend ntt --preset test-slots1024-scale40-levels4-int64 --device cpu "
          "--backend radix2_indexed --backend radix2_compact_group8_smem8 --runs 3 --repetitions 2 "
          "--warmup 1 --seed 3 --output " + output_.string());
  ASSERT_EQ(run_outcome.exit_code, 0) << run_outcome.err;
  EXPECT_TRUE(run_outcome.err.empty()) << run_outcome.err;  // no progress: stderr is not a terminal
  EXPECT_NE(run_outcome.out.find("recommended: "), std::string::npos);
  EXPECT_NE(run_outcome.out.find("apply: fhe::CkksEngine engine("), std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(read_text(output_));
  EXPECT_EQ(doc["metadata"]["seed"], 3);

  const auto rescored = dir_.path() / "rescored.json";
  const Outcome rescore = run("benchmark rescore " + output_.string() +
                              " --weights roundtrip=3 --policy strict --output " + rescored.string());
  ASSERT_EQ(rescore.exit_code, 0) << rescore.err;
  const nlohmann::json again = nlohmann::json::parse(read_text(rescored));
  EXPECT_EQ(again["evidence"], doc["evidence"]);
  EXPECT_EQ(again["recommendation"]["policy"], "strict");
  EXPECT_DOUBLE_EQ(again["analysis"]["scoring"]["weights"]["roundtrip"].get<double>(), 0.6);
  EXPECT_EQ(again["rescore"]["weights_text"], "roundtrip=3");
}

}  // namespace
}  // namespace fhelium
