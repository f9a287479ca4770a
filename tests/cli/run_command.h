// Runs a command line through the shell and captures stdout, stderr and the
// exit status, for tests that drive the `fhelium` binary as a user would.
#pragma once

#include <string>

namespace fhelium::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `arguments` is appended to the binary path as shell words.
CommandResult run_fhelium(const std::string& arguments);

}  // namespace fhelium::testing
