// Test helpers shared by every suite that drives a built binary as a user
// would: run a command line with stdin closed and capture its exit status,
// stdout and stderr; read a whole file as text.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fhelium::testing {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `command_line` is passed to the shell as is (quote what needs quoting).
inline CommandResult run_command(const std::string& command_line) {
  namespace fs = std::filesystem;
  char scratch[] = "/tmp/fhelium-test-XXXXXX";
  const fs::path dir = mkdtemp(scratch);
  const std::string command = command_line + " < /dev/null > " + (dir / "out").string() + " 2> " +
                              (dir / "err").string();
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(dir / "out");
  result.err = read_text(dir / "err");
  fs::remove_all(dir);
  return result;
}

}  // namespace fhelium::testing
