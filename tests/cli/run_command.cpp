// Process runner for the command-line tests.
#include "run_command.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fhelium::testing {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CommandResult run_fhelium(const std::string& arguments) {
  namespace fs = std::filesystem;
  char scratch[] = "/tmp/fhelium-cli-XXXXXX";
  const fs::path dir = mkdtemp(scratch);
  const std::string command = std::string(FHELIUM_BINARY) + " " + arguments + " >" +
                              (dir / "out").string() + " 2>" + (dir / "err").string();
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(dir / "out");
  result.err = slurp(dir / "err");
  fs::remove_all(dir);
  return result;
}

}  // namespace fhelium::testing
