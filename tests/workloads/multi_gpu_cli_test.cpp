// `fhelium workload matvec --gpus G` refusals through the binary, on any
// machine: one line on stderr and exit code 2 before any rank starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fhe/core/device_info.h"
#include "tests/support/process.h"

namespace {

constexpr const char* kSmall = " --preset test-slots2048-scale40-levels6-int64 --dim 16 --hoist 4";

void expect_bad_input(const std::string& arguments, const std::string& must_mention) {
  const auto result = fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " workload matvec" + kSmall + " " +
                                                    arguments);
  EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << arguments << "\n" << result.err;
  EXPECT_NE(result.err.find(must_mention), std::string::npos) << arguments << "\n" << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(MultiGpuCli, GpusBelowOneIsRefused) {
  expect_bad_input("--gpus 0", "--gpus must be at least 1 (got 0)");
  expect_bad_input("--gpus -1", "--gpus must be at least 1");
}

TEST(MultiGpuCli, MoreGpusThanVisibleIsRefused) {
  const int visible = static_cast<int>(fhe::query_gpus().gpus.size());
  const std::string asked = std::to_string(visible + 1);
  expect_bad_input("--gpus " + asked, "--gpus " + asked + " needs " + asked + " CUDA device" +
                                          (visible + 1 == 1 ? "" : "s") + " but " + std::to_string(visible));
  if (visible == 0) expect_bad_input("--gpus 3", "--gpus 3 needs 3 CUDA devices but 0 are visible");
}

TEST(MultiGpuCli, OptionsThatDoNotFitGpusAreRefused) {
  expect_bad_input("--gpus 1 --device cuda:1", "leave out --device");
  expect_bad_input("--gpus 1 --timeout-s 0", "--timeout-s must be at least 1");
  expect_bad_input("--timeout-s 60", "--timeout-s applies only with --gpus");
}

}  // namespace
