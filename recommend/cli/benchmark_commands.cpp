// `fhelium benchmark`: the parent of `recommend ntt`, `rescore` and `profile ntt`.
#include "recommend/cli/commands.h"

namespace fhelium::cli {

void add_benchmark_commands(CLI::App& app, const std::vector<std::string>& argv) {
  auto* benchmark = app.add_subcommand("benchmark", "Benchmark suites, backend recommendation, rescoring, profiling");
  benchmark->require_subcommand(1);
  add_recommend_command(*benchmark, argv);
  add_rescore_command(*benchmark, argv);
  add_profile_command(*benchmark, argv);
}

}  // namespace fhelium::cli
