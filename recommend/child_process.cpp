// posix_spawnp with file actions: the child's stdin is /dev/null and its
// stdout and stderr share the log file, so nothing it prints can block on
// a full pipe.
#include "recommend/child_process.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sstream>

#include "fhe/core/error.h"
#include "recommend/file_bytes.h"

extern char** environ;

namespace fhelium {

ChildResult run_child(const std::vector<std::string>& argv, const std::filesystem::path& log_file) {
  if (argv.empty()) throw fhe::InvalidArgument("run_child: no program given");
  ChildResult result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) return result;  // glibc reports a failed exec here, not as a status
  result.started = true;

  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw fhe::DeviceError("waitpid failed for " + argv[0]);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal_number = WTERMSIG(status);
  result.output = read_file_bytes(log_file, "the log of " + argv[0]);
  return result;
}

std::filesystem::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return candidate;
  }
  return {};
}

}  // namespace fhelium
