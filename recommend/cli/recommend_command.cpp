// `fhelium benchmark recommend ntt`: validate everything, time the suite,
// print the ranked table and write the evidence.
#include <unistd.h>

#include <iostream>

#include "fhe/core/device.h"
#include "recommend/atomic_file.h"
#include "recommend/cli/commands.h"
#include "recommend/ranked_table.h"
#include "recommend/recommend_request.h"
#include "recommend/recommend_run.h"
#include "recommend/suite_catalog.h"
#include "workloads/matvec/matvec_config.h"

namespace fhelium::cli {
namespace {

// One status line, rewritten in place; only used when stderr is a terminal.
void show_progress(const std::string& line) {
  std::cerr << "\r\033[K" << line << std::flush;
}

// --workload and the options of the application suite's workloads.
void add_application_options(CLI::App& command, ApplicationOptions& application) {
  command.add_option("--workload", application.workload, "application suite: matvec or keyswitch");
  command.add_option("--dim", application.dim, "matvec: matrix dimension d (power of two)")
      ->capture_default_str();
  command.add_option("--method", application.method, "matvec: diagonal or bsgs")->capture_default_str();
  command.add_option("--diagonal-policy", application.diagonal_policy, "matvec: batch, loop or lazy-moddown")
      ->capture_default_str();
  command.add_option("--hoist", application.hoist, "matvec: rotations per hoisted decomposition")
      ->capture_default_str();
  command.add_option("--baby-steps", application.baby_steps, std::string("matvec, ") + fhe::workloads::kBabyStepsHelp);
  command.add_option("--batch", application.batch, "matvec: products per rescale under batch")
      ->capture_default_str();
  command.add_option("--workers", application.workers, "matvec: rotation-parallel workers")
      ->capture_default_str();
  command.add_option("--graph", application.graph, "matvec, keyswitch: on|off, CUDA graph capture (CUDA only)");
  command.add_option("--levels", application.levels, "keyswitch: comma-separated levels, e.g. 0,17,33")
      ->capture_default_str();
  command.add_option("--step", application.step, "keyswitch: rotation step")->capture_default_str();
  // Hidden, test-only: corrupt this backend's outputs before the gate (recorded in the evidence).
  command.add_option("--inject-fault", application.inject_fault, "")->group("");
}

}  // namespace

void add_recommend_command(CLI::App& benchmark, const std::vector<std::string>& argv) {
  auto* recommend = benchmark.add_subcommand("recommend", "Recommend an exact backend from timed evidence");
  recommend->require_subcommand(1);
  auto* command = recommend->add_subcommand(
      "ntt", "Screen NTT backends with a suite, rank them and write JSON evidence");
  auto options = std::make_shared<RecommendOptions>();
  auto seed = std::make_shared<std::uint64_t>(0);
  command->add_option("--suite", options->suite, "kernel, ckks-primitive or application")
      ->capture_default_str();
  command->add_option("--preset", options->preset, "Preset name")->capture_default_str();
  command->add_option("--device", options->device, "cpu or cuda:N (default: cuda:0 when a GPU is present, else cpu)");
  command->add_option("--backend", options->backends,
                      "Backend to screen (repeatable, at least 2; default: every compatible backend, "
                      "without radix2_indexed on CUDA)");
  command->add_option("--warmup", options->warmup, "Untimed executions before each series")->capture_default_str();
  command->add_option("--runs", options->runs, "Timed samples per backend, operation and repetition")
      ->capture_default_str();
  command->add_option("--repetitions", options->repetitions, "Repetitions (backend order rotated each)")
      ->capture_default_str();
  command->add_option("--seed", *seed, "Seed of inputs, keys and bootstrap (default: random, recorded)");
  command->add_option("--level", options->level, "Time the active rows of this level (kernel, ckks-primitive)")
      ->capture_default_str();
  command->add_option("--weights", options->weights, "Operation weights op=w,... (default: equal)");
  command->add_option("--policy", options->policy, "documented or strict")->capture_default_str();
  command->add_option("--l2-flush", options->l2_flush, "on or off: flush L2 before each GPU sample")
      ->capture_default_str();
  command->add_option("--output", options->output,
                      "Evidence JSON (default: ntt-recommendation-<suite>[-<workload>].json)");
  add_application_options(*command, options->application);
  command->callback([options, seed, command, argv] {
    if (command->count("--seed") > 0) options->seed = *seed;
    // An empty --device is a typo, not a request for the default device.
    if (command->count("--device") > 0 && options->device.empty()) fhe::parse_device(options->device);
    if (command->count("--output") > 0) check_output_path(options->output);  // "" is refused, not the default
    for (const auto* names : {&kMatvecOptionNames, &kKeySwitchOptionNames})
      for (const std::string& name : *names)
        if (command->count(name) > 0) options->application.given.push_back(name);
    const RecommendPlan plan = resolve_request(*options);  // all validation, before any timing
    for (const RejectedBackend& r : plan.rejected)
      std::cerr << "fhelium: note: backend " << r.backend << " rejected: " << r.reason << '\n';
    const bool interactive = isatty(STDERR_FILENO) != 0;
    std::unique_ptr<Suite> suite = make_suite(plan);
    const nlohmann::json document =
        run_recommendation(plan, *suite, argv, interactive ? show_progress : nullptr);
    if (interactive) std::cerr << "\r\033[K";
    print_ranked_table(std::cout, document);
    std::cout << "evidence: " << plan.output.string() << '\n';
    for (const auto& record : document["correctness"]) {
      if (!record["passed"].get<bool>())
        std::cerr << "fhelium: warning: " << record["backend"].get<std::string>()
                  << " failed the correctness gate and was not ranked\n";
    }
    if (!document["recommendation"].is_object()) {
      std::cerr << "fhelium: no backend passed the correctness gate; evidence written to "
                << plan.output.string() << '\n';
      throw CommandExit{1};
    }
  });
}

}  // namespace fhelium::cli
