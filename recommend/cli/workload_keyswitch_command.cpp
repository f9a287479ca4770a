// `fhelium workload keyswitch`: relinearization and rotation key switching
// at chosen levels, on the CPU or on cuda:N as CudaKeySwitchWorkload (graph
// replays and eager runs, both timed with CUDA events); prints latency,
// memory and max_abs_error.
#include <algorithm>
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "evaluator/key_switch_schedule.h"
#include "fhe/ckks/engine.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "recommend/application_request.h"
#include "recommend/application_runner.h"
#include "recommend/cli/commands.h"
#include "recommend/cli/workload_options.h"
#include "recommend/device_memory.h"
#include "recommend/statistics.h"
#include "recommend/text_table.h"
#include "workloads/keyswitch/keyswitch_workload.h"
#include "workloads/memory_plan.h"
#if FHELIUM_HAS_CUDA
#include "workloads/keyswitch/cuda_keyswitch_workload.h"
#endif

namespace fhelium::cli {
namespace {

struct KeySwitchOptions {
  CommonOptions common;
  std::string levels = "0";
  int rotation_step = 1;
  std::string graph;  // on|off; empty = on for CUDA, off for the CPU
};

// One operation's measurements. On CUDA both modes are timed (the chosen
// one gives median_ms) and their output words compared.
struct KeySwitchRow {
  fhe::workloads::KeySwitchOperation op;
  std::vector<double> samples_ms;
  double max_abs_error = 0;
  nlohmann::json cuda;  // graph/eager samples and word equality; null on the CPU
};

// Prints the rows (table or JSON) and fails (exit 1) when a key switch
// exceeds the gate's limit or, on CUDA, graph and eager words differ.
void report_keyswitch(const KeySwitchOptions& options, const fhe::CkksEngine& engine,
                      const fhe::workloads::MemoryPlan& plan, const std::string& timing, bool graph,
                      const std::vector<KeySwitchRow>& results) {
  const fhe::Preset& preset = engine.preset();
  const bool cuda = engine.on_cuda();
  std::vector<std::string> columns = {"operation", "active Q rows", "digits", "median ms"};
  if (cuda) columns.insert(columns.end(), {"graph ms", "eager ms", "words equal"});
  columns.push_back("max_abs_error");
  TextTable table(columns);
  nlohmann::json rows = nlohmann::json::array();
  bool within_tolerance = true, words_equal = true;
  for (const KeySwitchRow& r : results) {
    within_tolerance = within_tolerance && r.max_abs_error <= kKeySwitchErrorLimit;
    // The level's schedule: its active Q rows and digits (the P rows are the preset's).
    const std::size_t digits = fhe::active_key_switch_digits(preset, r.op.level).size();
    std::vector<std::string> cells = {r.op.name(), std::to_string(preset.active_q_rows(r.op.level)),
                                      std::to_string(digits), format_number(median(r.samples_ms), 3)};
    nlohmann::json row = {{"operation", r.op.name()},
                          {"level", r.op.level},
                          {"active_q_rows", preset.active_q_rows(r.op.level)},
                          {"p_rows", preset.p_count},
                          {"digits", digits},
                          {"samples_ms", r.samples_ms},
                          {"median_ms", median(r.samples_ms)},
                          {"max_abs_error", r.max_abs_error}};
    if (cuda) {
      const bool equal = r.cuda["graph_equals_eager"].get<bool>();
      words_equal = words_equal && equal;
      cells.insert(cells.end(), {format_number(r.cuda["graph_median_ms"].get<double>(), 3),
                                 format_number(r.cuda["eager_median_ms"].get<double>(), 3), equal ? "yes" : "NO"});
      row.update(r.cuda);
    }
    cells.push_back(format_scientific(r.max_abs_error, 3));
    table.add_row(cells);
    rows.push_back(row);
  }
  if (options.common.json) {
    nlohmann::json out = {{"workload", "keyswitch"},
                          {"build", build_json()},
                          {"device", engine.device().str()},
                          {"preset", preset.name},
                          {"ntt_backend", engine.ntt_backend()},
                          {"rotation_step", options.rotation_step},
                          {"memory_bytes", plan.total_bytes()},
                          {"memory_plan", plan.summary()},
                          {"run", run_json(options.common)},
                          {"timing", timing},
                          {"operations", rows}};
    if (cuda) out["graph"] = graph ? "on" : "off";
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << "keyswitch on " << engine.device().str() << ", " << preset.name << ", " << engine.ntt_backend()
              << ", rotation step " << options.rotation_step << "\n"
              << "latency: " << timing << "\n"
              << "memory: " << plan.summary() << "\n";
    table.print(std::cout);
  }
  if (!words_equal) {
    std::cerr << "fhelium: graph replay and eager key-switch results differ\n";
    throw CommandExit{1};
  }
  if (!within_tolerance) {
    std::cerr << "fhelium: a key switch exceeded the " << format_scientific(kKeySwitchErrorLimit, 1)
              << " error limit\n";
    throw CommandExit{1};
  }
}

#if FHELIUM_HAS_CUDA
// Each operation timed as graph replays and as eager enqueues (warm-up
// first; the first replay's capture is outside the timed region), each
// sample one key switch between CUDA events on the evaluator's stream.
std::vector<KeySwitchRow> time_keyswitch_cuda(const KeySwitchOptions& options,
                                              fhe::workloads::CudaKeySwitchWorkload& workload, bool graph) {
  std::vector<KeySwitchRow> results;
  for (std::size_t i = 0; i < workload.operations().size(); ++i) {
    const fhe::workloads::KeySwitchOperation& op = workload.operations()[i];
    auto time_mode = [&](bool replay, fhe::Ciphertext& output) {
      std::vector<double> samples;
      for (int run = 0; run < options.common.warmup + options.common.runs; ++run) {
        const double ms = workload.time_launch_ms(i, replay);
        if (run >= options.common.warmup) samples.push_back(ms);
      }
      output = workload.download_output();
      return samples;
    };
    fhe::Ciphertext graph_output, eager_output;
    const auto graph_ms = time_mode(true, graph_output);
    const auto eager_ms = time_mode(false, eager_output);
    const bool equal = graph_output == eager_output;  // level, scale and every word
    KeySwitchRow row{op, graph ? graph_ms : eager_ms,
                     workload.max_abs_error(op, graph ? graph_output : eager_output), nullptr};
    row.cuda = {{"graph_samples_ms", graph_ms},   {"graph_median_ms", median(graph_ms)},
                {"eager_samples_ms", eager_ms},   {"eager_median_ms", median(eager_ms)},
                {"graph_equals_eager", equal}};
    results.push_back(std::move(row));
  }
  return results;
}

void run_keyswitch_cuda(const KeySwitchOptions& options, fhe::CkksEngine& engine, const std::vector<int>& levels,
                        bool graph) {
  // Checks its own device plan against cudaMemGetInfo before allocating.
  fhe::workloads::CudaKeySwitchWorkload workload(engine, levels, options.rotation_step);
  const auto rows = time_keyswitch_cuda(options, workload, graph);
  report_keyswitch(options, engine, workload.memory_plan(),
                   std::string("median ms = ") + (graph ? "graph replays" : "eager enqueues") + ", median of " +
                       std::to_string(options.common.runs) + " runs after " + std::to_string(options.common.warmup) +
                       " warm-up, CUDA events around one key switch",
                   graph, rows);
}
#else
void run_keyswitch_cuda(const KeySwitchOptions&, fhe::CkksEngine&, const std::vector<int>&, bool) {
  throw fhe::InvalidArgument("this fhelium was built without CUDA");
}
#endif

void run_keyswitch(KeySwitchOptions& options) {
  validate_counts(options.common);
  const fhe::Preset& preset = fhe::preset_by_name(options.common.preset);
  const std::vector<int> levels = fhe::workloads::parse_levels(options.levels, preset.levels);
  fhe::workloads::check_rotation_step(options.rotation_step, preset.slots());
  const fhe::DeviceSpec device = fhe::parse_device(options.common.device);
  const bool graph = parse_graph_option(options.graph, device);
  const auto plan = fhe::workloads::plan_keyswitch_memory(preset, levels, device.kind);
  fhe::require_device(device);
  const DeviceMemory memory = available_device_memory(device);
  fhe::workloads::require_plan_fits(preset, plan, "keyswitch", memory.available_bytes, memory.description);
  auto engine = make_engine(options.common);
  engine->generate_keys({options.rotation_step});
  if (device.kind == fhe::DeviceKind::cuda) {
    run_keyswitch_cuda(options, *engine, levels, graph);
    return;
  }
  fhe::workloads::KeySwitchWorkload workload(*engine, levels, options.rotation_step);
  std::vector<KeySwitchRow> rows;
  for (const auto& op : workload.operations()) {
    fhe::Ciphertext output;
    const auto samples = time_runs_ms(options.common, [&] { output = workload.run(op); });
    rows.push_back({op, samples, workload.max_abs_error(op, output), nullptr});
  }
  report_keyswitch(options, *engine, plan,
                   "median of " + std::to_string(options.common.runs) + " runs after " +
                       std::to_string(options.common.warmup) + " warm-up, steady_clock around one key switch",
                   graph, rows);
}


}  // namespace

void add_workload_keyswitch_command(CLI::App& workload) {
  auto keyswitch = std::make_shared<KeySwitchOptions>();
  auto* k = workload.add_subcommand("keyswitch", "Relinearization and rotation at chosen levels");
  add_common_options(*k, keyswitch->common);
  k->add_option("--levels", keyswitch->levels, "Comma-separated levels, e.g. 0,17,33")
      ->capture_default_str();
  k->add_option("--step", keyswitch->rotation_step, "Rotation step")->capture_default_str();
  k->add_option("--graph", keyswitch->graph, "on|off: time graph replays or eager enqueues (CUDA only)");
  k->callback([keyswitch] { run_keyswitch(*keyswitch); });
}

}  // namespace fhelium::cli
