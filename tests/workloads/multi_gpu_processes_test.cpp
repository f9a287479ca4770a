// The rank processes (multi_gpu_processes.h) with ordinary programs: the
// message arrives through the inherited descriptor named by --rank-fd; a
// child that fails, is killed, cannot start or hangs past the deadline
// makes rank 0 fail with its name; NCCL_NVLS_ENABLE is kept at 0.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "fhe/core/error.h"
#include "workloads/matvec/multi_gpu_processes.h"

namespace fhe::workloads {
namespace {

// `sh -c script --rank-fd N`: the script sees "--rank-fd" as $0 and N as $1.
std::vector<std::string> shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

RankClock::time_point seconds_from_now(double seconds) {
  return RankClock::now() + std::chrono::duration_cast<RankClock::duration>(std::chrono::duration<double>(seconds));
}

void expect_failure(RankProcesses& processes, RankClock::time_point deadline, const std::string& must_mention) {
  try {
    processes.wait_all(deadline);
    ADD_FAILURE() << "wait_all returned";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find(must_mention), std::string::npos) << error.what();
  }
}

TEST(MultiGpuProcesses, EachChildReadsItsOwnMessageFromTheInheritedDescriptor) {
  RankProcesses processes;
  for (int rank = 1; rank <= 3; ++rank) {
    const std::string expected = "message for rank " + std::to_string(rank);
    processes.start("rank " + std::to_string(rank),
                    shell("test \"$0\" = --rank-fd && test \"$(cat <&$1)\" = '" + expected + "'"), expected);
  }
  EXPECT_EQ(processes.size(), 3u);
  EXPECT_NO_THROW(processes.wait_all(seconds_from_now(60)));
}

TEST(MultiGpuProcesses, AChildInheritsNoOtherDescriptorOfRankZero) {
  const int leaked = open("/dev/null", O_RDONLY);  // no close-on-exec
  ASSERT_GE(leaked, 0);
  RankProcesses processes;
  processes.start("rank 1", shell("test -e /proc/self/fd/$1 && test ! -e /proc/self/fd/" + std::to_string(leaked)),
                  "x");
  EXPECT_NO_THROW(processes.wait_all(seconds_from_now(60)));
  close(leaked);
}

TEST(MultiGpuProcesses, AWrongMessageMakesTheChildFail) {
  RankProcesses processes;
  processes.start("rank 1", shell("test \"$(cat <&$1)\" = expected"), "something else");
  expect_failure(processes, seconds_from_now(60), "rank 1 exited with status 1");
}

TEST(MultiGpuProcesses, AFailedChildIsNamed) {
  RankProcesses processes;
  processes.start("rank 1 on cuda:1", shell("cat <&$1 >/dev/null"), "x");
  processes.start("rank 2 on cuda:2", shell("exit 3"), "x");
  expect_failure(processes, seconds_from_now(60), "rank 2 on cuda:2 exited with status 3");
}

TEST(MultiGpuProcesses, AKilledChildIsNamed) {
  RankProcesses processes;
  processes.start("rank 1", shell("kill -9 $$"), "x");
  expect_failure(processes, seconds_from_now(60), "rank 1 was killed by signal 9");
}

TEST(MultiGpuProcesses, AMissingProgramIsReported) {
  RankProcesses processes;
  processes.start("rank 1", {"/nonexistent/fhelium"}, "x");
  expect_failure(processes, seconds_from_now(60), "status 127 (could not execute /nonexistent/fhelium)");
}

TEST(MultiGpuProcesses, CheckPassesWhileChildrenRunAndAHangIsKilledAtTheDeadline) {
  RankProcesses processes;
  processes.start("rank 1", shell("exec sleep 60"), "x");
  EXPECT_NO_THROW(processes.check());
  expect_failure(processes, seconds_from_now(0.2), "rank 1 did not finish within the time limit (killed)");
  EXPECT_NO_THROW(processes.check());  // reaped: nothing left to report
}

TEST(MultiGpuProcesses, ReadRankMessageReadsToEndOfFile) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string text = "line one\nline two\n";
  ASSERT_EQ(write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fds[1]);
  EXPECT_EQ(read_rank_message(fds[0]), text);  // also closes fds[0]
  EXPECT_THROW(read_rank_message(fds[0]), InvalidArgument);
  EXPECT_THROW(read_rank_message(-1), InvalidArgument);
}

// Restores NCCL_NVLS_ENABLE as it was before the test.
class SavedNvlsSetting {
 public:
  SavedNvlsSetting() {
    if (const char* value = std::getenv("NCCL_NVLS_ENABLE")) saved_ = value;
  }
  ~SavedNvlsSetting() {
    if (saved_) {
      setenv("NCCL_NVLS_ENABLE", saved_->c_str(), 1);
    } else {
      unsetenv("NCCL_NVLS_ENABLE");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(MultiGpuProcesses, NvlinkMulticastIsKeptOff) {
  SavedNvlsSetting saved;
  unsetenv("NCCL_NVLS_ENABLE");
  keep_nvlink_multicast_off();
  ASSERT_NE(std::getenv("NCCL_NVLS_ENABLE"), nullptr);
  EXPECT_EQ(std::string(std::getenv("NCCL_NVLS_ENABLE")), "0");
  EXPECT_NO_THROW(keep_nvlink_multicast_off());
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  try {
    keep_nvlink_multicast_off();
    ADD_FAILURE() << "NCCL_NVLS_ENABLE=1 accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("NCCL_NVLS_ENABLE=1"), std::string::npos) << error.what();
  }
}

TEST(MultiGpuProcesses, RanksInheritTheEnvironment) {
  SavedNvlsSetting saved;
  unsetenv("NCCL_NVLS_ENABLE");
  keep_nvlink_multicast_off();
  RankProcesses processes;
  processes.start("rank 1", shell("test \"$NCCL_NVLS_ENABLE\" = 0"), "x");
  EXPECT_NO_THROW(processes.wait_all(seconds_from_now(60)));
}

}  // namespace
}  // namespace fhe::workloads
