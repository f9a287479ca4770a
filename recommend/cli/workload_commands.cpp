// `fhelium workload`: the parent of `matvec` and `keyswitch`, each in its
// own file (workload_matvec_command.cpp, workload_keyswitch_command.cpp).
#include "recommend/cli/commands.h"
#include "recommend/cli/workload_options.h"

namespace fhelium::cli {

void add_workload_commands(CLI::App& app) {
  auto* workload = app.add_subcommand("workload", "Run one application workload");
  workload->require_subcommand(1);
  add_workload_matvec_command(*workload);
  add_workload_keyswitch_command(*workload);
}

}  // namespace fhelium::cli
