// `fhelium benchmark rescore FILE.json`: recompute the scores and the
// decision of archived evidence (other weights, other policy) without
// running anything.
#include <iostream>

#include <nlohmann/json.hpp>

#include "fhe/core/error.h"
#include "recommend/atomic_file.h"
#include "recommend/cli/commands.h"
#include "recommend/document_scoring.h"
#include "recommend/provenance.h"
#include "recommend/ranked_table.h"
#include "recommend/report_inputs.h"

namespace fhelium::cli {
namespace {

struct RescoreOptions {
  std::string input;
  std::string weights;
  std::string policy;
  std::string output;
};

}  // namespace

void add_rescore_command(CLI::App& benchmark, const std::vector<std::string>& argv) {
  auto* command = benchmark.add_subcommand(
      "rescore", "Recompute scores and decision from an evidence file (no timing)");
  auto options = std::make_shared<RescoreOptions>();
  command->add_option("file", options->input, "Evidence JSON")->required();
  command->add_option("--weights", options->weights, "Operation weights op=w,... (default: the file's)");
  command->add_option("--policy", options->policy, "documented or strict (default: the file's)");
  command->add_option("--output", options->output, "Write the rescored evidence here");
  command->callback([options, command, argv] {
    if (command->count("--output") > 0) check_output_path(options->output);  // "" is refused
    nlohmann::json document = read_json_file(options->input, "evidence file").document;
    ScoringOverrides overrides;
    if (command->count("--weights") > 0) overrides.weights_text = options->weights;
    if (command->count("--policy") > 0) overrides.policy = options->policy;
    score_file_document(options->input, document, overrides);
    document["rescore"] = {{"source", options->input},
                           {"argv", argv},
                           {"time_utc", utc_now_iso8601()},
                           {"weights_text", document["analysis"]["scoring"]["weights_text"]},
                           {"policy", document["analysis"]["scoring"]["policy"]}};
    print_ranked_table(std::cout, document);
    if (command->count("--output") > 0) {
      write_file_atomically(options->output,
                            [&](std::ostream& out) { out << document.dump(2) << '\n'; });
      std::cout << "rescored evidence: " << options->output << '\n';
    }
  });
}

}  // namespace fhelium::cli
