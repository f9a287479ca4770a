// fork + exec of the ranks, their pipes, polling and killing.
#include "workloads/matvec/multi_gpu_processes.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "fhe/core/error.h"

namespace fhe::workloads {
namespace {

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

std::string describe_status(int status, const std::string& program) {
  if (WIFEXITED(status)) {
    std::string text = "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WEXITSTATUS(status) == 127) text += " (could not execute " + program + ")";
    return text;
  }
  if (WIFSIGNALED(status)) {
    const char* name = strsignal(WTERMSIG(status));
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

void close_quietly(int fd) {
  if (fd >= 0) close(fd);
}

}  // namespace

RankProcesses::~RankProcesses() { kill_all(); }

void RankProcesses::start(const std::string& label, const std::vector<std::string>& command,
                          const std::string& message) {
  if (command.empty()) throw InvalidArgument("RankProcesses::start: empty command for " + label);
  // One write of at most PIPE_BUF bytes fits the pipe before the child
  // exists, so rank 0 never blocks on (or gets SIGPIPE from) a child.
  if (message.size() > PIPE_BUF) throw InvalidArgument("RankProcesses::start: message too long for " + label);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw DeviceError(system_error("pipe for " + label));
  ssize_t written;
  do {
    written = write(fds[1], message.data(), message.size());
  } while (written < 0 && errno == EINTR);
  if (written != static_cast<ssize_t>(message.size())) {
    const std::string error = system_error("writing the message of " + label);
    close_quietly(fds[0]);
    close_quietly(fds[1]);
    throw DeviceError(error);
  }
  // Everything the child uses is prepared before fork: between fork and
  // exec only async-signal-safe calls are allowed.
  std::vector<std::string> arguments = command;
  arguments.push_back("--rank-fd");
  arguments.push_back(std::to_string(fds[0]));
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    const std::string error = system_error("fork for " + label);
    close_quietly(fds[0]);
    close_quietly(fds[1]);
    throw DeviceError(error);
  }
  if (pid == 0) {
    // Die with rank 0 (and do not outlive it if it is already gone).
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
    // Only stdin, stdout, stderr and the read end survive exec (rank 0's
    // other descriptors, NCCL's bootstrap socket included, do not leak);
    // the write end closes there, so the child reads to end of file.
    // close_range may be missing on old kernels: close-on-exec then
    // covers what rank 0 opened with it.
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    if (fcntl(fds[0], F_SETFD, 0) != 0) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close_quietly(fds[0]);
  close_quietly(fds[1]);
  children_.push_back({label, command[0], pid, false});
}

void RankProcesses::check() {
  for (Child& child : children_) {
    if (child.reaped) continue;
    int status = 0;
    const pid_t done = waitpid(child.pid, &status, WNOHANG);
    if (done == 0) continue;
    if (done < 0 && errno == EINTR) continue;
    child.reaped = true;
    if (done < 0) throw DeviceError(system_error("waiting for " + child.label));
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      throw DeviceError(child.label + " " + describe_status(status, child.program));
    }
  }
}

void RankProcesses::wait_all(RankClock::time_point deadline) {
  for (;;) {
    check();
    std::string running;
    for (const Child& child : children_) {
      if (!child.reaped) running += (running.empty() ? "" : ", ") + child.label;
    }
    if (running.empty()) return;
    if (RankClock::now() >= deadline) {
      kill_all();
      throw DeviceError(running + " did not finish within the time limit (killed)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void RankProcesses::kill_all() {
  for (Child& child : children_) {
    if (child.reaped) continue;
    kill(child.pid, SIGKILL);
    while (waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    child.reaped = true;
  }
}

std::string read_rank_message(int fd) {
  if (fd < 0) throw InvalidArgument("--rank-fd " + std::to_string(fd) + " is not a descriptor");
  std::string text;
  char buffer[1024];
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const std::string error = system_error("--rank-fd " + std::to_string(fd) + ": cannot read the rank message");
      close(fd);
      throw InvalidArgument(error);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > PIPE_BUF) {
      close(fd);
      throw InvalidArgument("--rank-fd " + std::to_string(fd) + ": rank message too long");
    }
  }
  close(fd);
  return text;
}

void keep_nvlink_multicast_off() {
  const char* value = std::getenv("NCCL_NVLS_ENABLE");
  if (value == nullptr) {
    if (setenv("NCCL_NVLS_ENABLE", "0", 1) != 0) throw DeviceError(system_error("setenv NCCL_NVLS_ENABLE"));
    return;
  }
  if (std::string(value) != "0") {
    throw InvalidArgument(std::string("NCCL_NVLS_ENABLE=") + value +
                          ": NVLink multicast must stay off on shared machines (unset it or set it to 0)");
  }
}

}  // namespace fhe::workloads
