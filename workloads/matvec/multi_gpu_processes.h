// The further ranks of a multi-GPU run as child processes of rank 0. Each
// is a fork + exec of a given command line with "--rank-fd N" appended, N
// the read end of a pipe that already holds the rank's message (the NCCL
// unique id travels there, never through a file that could outlive the
// run); no other descriptor of rank 0 is inherited. A child dies with the thread that started it (PR_SET_PDEATHSIG);
// rank 0 polls its children so that a failed rank ends the run with its
// name instead of a hang, and kills the others on any error. POSIX only,
// no CUDA: tested on the CPU with ordinary programs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace fhe::workloads {

using RankClock = std::chrono::steady_clock;

class RankProcesses {
 public:
  RankProcesses() = default;
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;
  // Kills (SIGKILL) and reaps every child still running.
  ~RankProcesses();

  // Starts `command` (command[0] an executable path) + {"--rank-fd", N};
  // the child reads `message` (at most one atomic pipe write) from fd N.
  // `label` names the child in errors ("rank 1 on cuda:1").
  void start(const std::string& label, const std::vector<std::string>& command, const std::string& message);
  // Throws DeviceError naming the first child that has exited with a
  // non-zero status or was killed by a signal.
  void check();
  // Returns once every child has exited with status 0; throws as check()
  // does, or kills them all and throws DeviceError when `deadline` passes.
  void wait_all(RankClock::time_point deadline);
  // Kills (SIGKILL) and reaps every child still running.
  void kill_all();
  std::size_t size() const { return children_.size(); }

 private:
  struct Child {
    std::string label;
    std::string program;
    pid_t pid = -1;
    bool reaped = false;
  };
  std::vector<Child> children_;
};

// A started rank's side: reads the whole message from `fd` and closes it.
// Throws InvalidArgument when the descriptor cannot be read.
std::string read_rank_message(int fd);

// NVLink multicast must stay off on shared machines: sets
// NCCL_NVLS_ENABLE=0 in this process's environment (inherited by every
// rank it starts) when unset; throws InvalidArgument when it is set to
// anything but 0.
void keep_nvlink_multicast_off();

}  // namespace fhe::workloads
