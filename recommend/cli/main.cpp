// `fhelium`: the command line. Subcommands register themselves from their
// own files; errors become one line on stderr and a non-zero exit
// (2 for input the user can fix, 1 for failures).
#include <iostream>
#include <string>
#include <vector>

#include "fhe/core/error.h"
#include "recommend/cli/commands.h"

namespace {

// CLI11's "A subcommand is required" names neither the command nor its
// choices: say which command needs one, the word it got instead (an unknown
// or misspelt subcommand) and the subcommands it takes.
std::string missing_subcommand_message(const CLI::App& root) {
  const CLI::App* at = &root;
  std::string path = "fhelium";
  for (auto chosen = at->get_subcommands(); !chosen.empty(); chosen = at->get_subcommands()) {
    at = chosen.front();
    path += " " + at->get_name();
  }
  std::string known;
  // Hidden subcommands (no group, as `ntt run-once`) stay unnamed, as in --help.
  for (const CLI::App* sub : at->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  const std::vector<std::string> extra = root.remaining(true);
  if (extra.empty()) return "'" + path + "' needs a subcommand (one of: " + known + ")";
  return "unknown subcommand '" + extra.front() + "' of '" + path + "' (known: " + known + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"FHElium: CKKS with seven NTT backends, and the evidence to choose one"};
  app.require_subcommand(1);
  fhelium::cli::add_presets_command(app);
  fhelium::cli::add_info_command(app);
  fhelium::cli::add_ntt_commands(app);
  fhelium::cli::add_ntt_run_once_command(*app.get_subcommand("ntt"));
  fhelium::cli::add_benchmark_commands(app, std::vector<std::string>(argv, argv + argc));
  fhelium::cli::add_workload_commands(app);
  fhelium::cli::add_report_command(app, std::vector<std::string>(argv, argv + argc));
  fhelium::cli::require_decimal_integers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const fhelium::cli::CommandExit& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    const bool no_subcommand = std::string(e.what()) == CLI::RequiredError::Subcommand(1).what();
    std::cerr << "fhelium: error: " << (no_subcommand ? missing_subcommand_message(app) : e.what()) << '\n';
    return 2;
  } catch (const fhe::InvalidArgument& e) {
    std::cerr << "fhelium: error: " << e.what() << '\n';
    return 2;
  } catch (const fhe::DeviceError& e) {
    std::cerr << "fhelium: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fhelium: failed: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
