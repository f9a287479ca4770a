// `fhelium benchmark profile ntt` and `fhelium ntt run-once` through the
// built binary: bad input ends with exit code 2, one `fhelium: error:` line
// and no file. Nothing here needs a GPU (cuda:99 is absent everywhere).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/recommend/test_support.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

class ProfileCli : public ::testing::Test {
 protected:
  test::TempDir dir_;
  std::string json_ = (dir_.path() / "profile.json").string();

  void expect_rejected(const std::string& args, const std::string& expected) {
    const auto outcome = fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " " + args);
    EXPECT_EQ(outcome.exit_code, 2) << args << "\n" << outcome.err;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
    EXPECT_EQ(outcome.err.rfind("fhelium: error: ", 0), 0u) << outcome.err;
    EXPECT_NE(outcome.err.find(expected), std::string::npos) << outcome.err;
    EXPECT_TRUE(outcome.out.empty()) << outcome.out;
    EXPECT_TRUE(dir_.entries().empty()) << args;
  }
  std::string profile(const std::string& extra) {
    return "benchmark profile ntt --json " + json_ + " " + extra;
  }
};

TEST_F(ProfileCli, BadBackendsAreRejected) {
  expect_rejected(profile(""), "profile needs at least one --backend");
  expect_rejected(profile("--backend radix3_compact"), "unknown NTT backend 'radix3_compact'");
  expect_rejected(profile("--backend radix16_compact --backend radix16_compact"), "radix16_compact is given twice");
  expect_rejected(profile("--backend radix16_compact --preset test-slots1024-scale40-levels4-int64"),
                  "backend radix16_compact is incompatible with preset test-slots1024-scale40-levels4-int64");
}

TEST_F(ProfileCli, BadPresetLevelDeviceAndPathsAreRejected) {
  expect_rejected(profile("--backend radix16_compact --preset slots1-scale1"), "unknown preset 'slots1-scale1'");
  expect_rejected(profile("--backend radix16_compact --level 99"), "99");
  expect_rejected(profile("--backend radix16_compact --device cpu"), "profile runs on a CUDA device");
  expect_rejected(profile("--backend radix16_compact --device cuda:99"), "cuda:99");
  expect_rejected("benchmark profile ntt --backend radix16_compact --json " + (dir_.path() / "nodir/p.json").string(),
                  "nodir");
  expect_rejected(profile("--backend radix16_compact --raw-dir " + (dir_.path() / "raw").string()),
                  "--raw-dir " + (dir_.path() / "raw").string() + " is not an existing directory");
  expect_rejected("benchmark profile", "");  // the subcommand `ntt` is required
}

TEST_F(ProfileCli, RunOnceRejectsBadInput) {
  const std::string run_once = "ntt run-once --preset slots32768-scale40-levels34-int64 ";
  expect_rejected(run_once + "--backend radix16_compact --direction sideways",
                  "--direction must be 'forward' or 'inverse', not 'sideways'");
  expect_rejected(run_once + "--backend radix16_compact --device cpu", "runs on a CUDA device (cuda:N), not cpu");
  expect_rejected(run_once + "--backend radix16_compact --device cuda:99", "cuda:99");
  expect_rejected(run_once + "--backend nope", "unknown NTT backend 'nope'");
}

TEST_F(ProfileCli, RunOnceIsHiddenFromHelp) {
  const auto help = fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " ntt --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("describe"), std::string::npos);
  EXPECT_EQ(help.out.find("run-once"), std::string::npos);
}

}  // namespace
}  // namespace fhelium
