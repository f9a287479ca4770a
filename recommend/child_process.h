// Runs another program (no shell, so arguments need no quoting) with stdin
// from /dev/null and its stdout and stderr together in one log file, and
// waits for it. The profile command runs Nsight Compute this way.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fhelium {

struct ChildResult {
  bool started = false;   // false: the program could not be executed at all
  int exit_code = -1;     // the exit status; -1 when it ended by a signal
  int signal_number = 0;  // the signal that ended it, else 0
  std::string output;     // stdout and stderr, interleaved as written
};

// `argv[0]` is a path or a name looked up on PATH. The log file is
// overwritten and kept, so callers may leave it beside their results.
ChildResult run_child(const std::vector<std::string>& argv, const std::filesystem::path& log_file);

// The first executable `name` on PATH, else empty.
std::filesystem::path find_on_path(const std::string& name);

}  // namespace fhelium
