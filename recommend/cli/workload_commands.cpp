// `fhelium workload matvec` and `fhelium workload keyswitch`: run one
// application workload, print latency (median of timed runs after a
// warm-up), the memory plan and max_abs_error. On cuda:N the matvec runs
// as CudaMatvec: graph replays and eager runs, both timed with CUDA events.
#include <algorithm>
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "fhe/ckks/engine.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "recommend/application_request.h"
#include "recommend/cli/commands.h"
#include "recommend/device_memory.h"
#include "recommend/text_table.h"
#include "workloads/keyswitch/keyswitch_workload.h"
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/matvec_workload.h"
#include "workloads/memory_plan.h"
#if FHELIUM_HAS_CUDA
#include "workloads/matvec/cuda_matvec.h"
#endif

namespace fhelium::cli {
namespace {

struct CommonOptions {
  std::string device = "cpu";
  std::string preset = std::string(fhe::kDefaultPresetName);
  std::string backend;  // empty: the device's stable fallback
  std::uint64_t seed = 1;
  int warmup = 1;
  int runs = 3;
  bool json = false;
};

void add_common_options(CLI::App& command, CommonOptions& options) {
  command.add_option("--device", options.device, "cpu or cuda:N")->capture_default_str();
  command.add_option("--preset", options.preset, "Preset name")->capture_default_str();
  command.add_option("--backend", options.backend, "NTT backend (default: the stable fallback)");
  command.add_option("--seed", options.seed, "Seed of keys, inputs and the problem")
      ->capture_default_str();
  command.add_option("--warmup", options.warmup, "Untimed runs first")->capture_default_str();
  command.add_option("--runs", options.runs, "Timed runs")->capture_default_str();
  command.add_flag("--json", options.json, "Print JSON");
}

void validate_counts(const CommonOptions& options) {
  if (options.warmup < 0) throw fhe::InvalidArgument("--warmup must not be negative");
  if (options.runs < 1) throw fhe::InvalidArgument("--runs must be at least 1");
}

std::unique_ptr<fhe::CkksEngine> make_engine(const CommonOptions& options) {
  const fhe::DeviceSpec device = fhe::parse_device(options.device);
  fhe::require_device(device);
  return std::make_unique<fhe::CkksEngine>(
      options.preset, fhe::EngineOptions{.device = options.device, .ntt_backend = options.backend,
                                         .seed = options.seed});
}

template <typename Run>
std::vector<double> time_runs_ms(const CommonOptions& options, Run&& run) {
  for (int i = 0; i < options.warmup; ++i) run();
  std::vector<double> samples;
  for (int i = 0; i < options.runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return samples;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct MatvecOptions {
  CommonOptions common;
  std::string method = "diagonal";
  std::string policy = "batch";
  std::string graph;  // on|off; empty = on for CUDA, off for the CPU
  fhe::workloads::MatvecConfig config;
};

void check_matvec_error(double error) {
  if (error > 5e-5) {
    std::cerr << "fhelium: matvec error " << error << " exceeds the 5e-5 tolerance\n";
    throw CommandExit{1};
  }
}

nlohmann::json matvec_json(const MatvecOptions& options, const fhe::DeviceSpec& device, const fhe::CkksEngine& engine,
                           bool graph, const fhe::workloads::MemoryPlan& plan) {
  return {{"workload", "matvec"},
          {"device", device.str()},
          {"preset", engine.preset().name},
          {"ntt_backend", engine.ntt_backend()},
          {"dim", options.config.dim},
          {"method", fhe::workloads::method_name(options.config.method)},
          {"policy", fhe::workloads::policy_name(options.config.policy)},
          {"hoist", options.config.hoist},
          {"batch", options.config.batch},
          {"workers", options.config.workers},
          {"graph", graph ? "on" : "off"},
          {"rotations", fhe::workloads::matvec_rotation_count(options.config)},
          {"memory_bytes", plan.total_bytes()},
          {"memory_plan", plan.summary()}};
}

#if FHELIUM_HAS_CUDA
bool same_words(const fhe::Ciphertext& a, const fhe::Ciphertext& b) {
  if (a.level != b.level || a.size() != b.size()) return false;
  for (std::size_t p = 0; p < a.size(); ++p) {
    if (a.parts[p].words() != b.parts[p].words()) return false;
  }
  return true;
}

// Graph replays and eager runs of one staged input, each sample timed with
// CUDA events around the launch only (staging precedes it). Both are always
// measured so the replay/eager factor and word equality come with every run.
void run_matvec_cuda(const MatvecOptions& options, fhe::CkksEngine& engine, bool graph,
                     const fhe::workloads::MemoryPlan& plan) {
  fhe::workloads::CudaMatvec matvec(engine, options.config);
  const fhe::Ciphertext input = engine.encrypt_message(matvec.problem().input_slots());
  auto time_mode = [&](bool replay, fhe::Ciphertext& result) {
    std::vector<double> samples;
    for (int i = 0; i < options.common.warmup + options.common.runs; ++i) {
      matvec.stage(input);
      const double ms = matvec.time_launch_ms(replay);
      if (i >= options.common.warmup) samples.push_back(ms);
    }
    result = matvec.download_result();
    return samples;
  };
  fhe::Ciphertext graph_result, eager_result;
  const auto graph_ms = time_mode(true, graph_result);
  const auto eager_ms = time_mode(false, eager_result);
  const double error = matvec.max_abs_error(graph ? graph_result : eager_result);
  const bool equal = same_words(graph_result, eager_result);
  // The byte floor: every rotation streams one level-0 Galois key.
  const double key_bytes = static_cast<double>(matvec.rotation_count()) *
                           static_cast<double>(fhe::workloads::key_switch_key_bytes(engine.preset()));
  const double floor_ms = key_bytes / 4e12 * 1e3;
  const auto& samples = graph ? graph_ms : eager_ms;
  nlohmann::json out = matvec_json(options, fhe::parse_device(options.common.device), engine, graph, plan);
  out.update({{"samples_ms", samples},
              {"median_ms", median(samples)},
              {"graph_samples_ms", graph_ms},
              {"graph_median_ms", median(graph_ms)},
              {"eager_samples_ms", eager_ms},
              {"eager_median_ms", median(eager_ms)},
              {"eager_over_graph", median(eager_ms) / median(graph_ms)},
              {"graph_equals_eager", equal},
              {"rotation_key_bytes", key_bytes},
              {"key_floor_ms_at_4TBps", floor_ms},
              {"timing", "CUDA events around one launch; input staged before each sample"},
              {"max_abs_error", error}});
  if (options.common.json) {
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << "matvec " << options.config.dim << "x" << options.config.dim << " "
              << out["method"].get<std::string>() << "/" << out["policy"].get<std::string>() << " on "
              << out["device"].get<std::string>() << ", " << engine.preset().name << ", " << engine.ntt_backend()
              << ", " << matvec.rotation_count() << " rotations, " << options.config.workers << " worker(s)\n"
              << "latency (graph " << (graph ? "on" : "off") << "): " << format_number(median(samples), 3)
              << " ms (median of " << samples.size() << ", CUDA events)\n"
              << "graph replay: " << format_number(median(graph_ms), 3) << " ms, eager: "
              << format_number(median(eager_ms), 3) << " ms, eager/replay "
              << format_number(median(eager_ms) / median(graph_ms), 2) << "x, words equal: "
              << (equal ? "yes" : "NO") << "\n"
              << "key byte floor: " << format_number(floor_ms, 2) << " ms at 4 TB/s ("
              << format_number(key_bytes / (1u << 30), 1) << " GiB of rotation keys)\n"
              << "memory: " << plan.summary() << "\n"
              << "max_abs_error: " << format_scientific(error, 3) << "\n";
  }
  if (!equal) {
    std::cerr << "fhelium: graph replay and eager results differ\n";
    throw CommandExit{1};
  }
  check_matvec_error(error);
}
#else
void run_matvec_cuda(const MatvecOptions&, fhe::CkksEngine&, bool, const fhe::workloads::MemoryPlan&) {
  throw fhe::InvalidArgument("this fhelium was built without CUDA");
}
#endif

void run_matvec(MatvecOptions& options) {
  validate_counts(options.common);
  options.config.method = fhe::workloads::parse_method(options.method);
  options.config.policy = fhe::workloads::parse_policy(options.policy);
  const fhe::DeviceSpec device = fhe::parse_device(options.common.device);
  const bool graph = parse_graph_option(options.graph, device);
  const fhe::Preset& preset = fhe::preset_by_name(options.common.preset);
  fhe::workloads::validate(options.config, preset.slots());
  const auto plan = fhe::workloads::plan_matvec_memory(preset, options.config);
  fhe::require_device(device);
  const DeviceMemory memory = available_device_memory(device);
  fhe::workloads::require_fits(preset, options.config, memory.available_bytes, memory.description);
  auto engine = make_engine(options.common);
  engine->generate_keys(fhe::workloads::matvec_rotation_steps(options.config));
  if (device.kind == fhe::DeviceKind::cuda) {
    run_matvec_cuda(options, *engine, graph, plan);
    return;
  }
  fhe::workloads::MatvecWorkload workload(*engine, options.config);
  const fhe::Ciphertext input = workload.encrypt_input();
  fhe::Ciphertext output;
  const auto samples = time_runs_ms(options.common, [&] { output = workload.run(input); });
  const double error = workload.max_abs_error(output);

  nlohmann::json out = matvec_json(options, device, *engine, graph, plan);
  out.update({{"samples_ms", samples}, {"median_ms", median(samples)}, {"max_abs_error", error}});
  if (options.common.json) {
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << "matvec " << options.config.dim << "x" << options.config.dim << " "
              << out["method"].get<std::string>() << "/" << out["policy"].get<std::string>()
              << " on " << device.str() << ", " << preset.name << ", " << engine->ntt_backend()
              << ", " << workload.rotation_count() << " rotations\n"
              << "latency: " << format_number(median(samples), 3) << " ms (median of "
              << samples.size() << ")\n"
              << "memory: " << plan.summary() << "\n"
              << "max_abs_error: " << format_scientific(error, 3) << "\n";
  }
  check_matvec_error(error);
}

struct KeySwitchOptions {
  CommonOptions common;
  std::string levels = "0";
  int rotation_step = 1;
};

void run_keyswitch(KeySwitchOptions& options) {
  validate_counts(options.common);
  const fhe::Preset& preset = fhe::preset_by_name(options.common.preset);
  const std::vector<int> levels = fhe::workloads::parse_levels(options.levels, preset.levels);
  const fhe::DeviceSpec device = fhe::parse_device(options.common.device);
  const auto plan = fhe::workloads::plan_keyswitch_memory(preset, levels);
  fhe::require_device(device);
  const DeviceMemory memory = available_device_memory(device);
  fhe::workloads::require_plan_fits(preset, plan, "keyswitch", memory.available_bytes, memory.description);
  auto engine = make_engine(options.common);
  engine->generate_keys({options.rotation_step});
  fhe::workloads::KeySwitchWorkload workload(*engine, levels, options.rotation_step);
  TextTable table({"operation", "active Q rows", "median ms", "max_abs_error"});
  nlohmann::json rows = nlohmann::json::array();
  bool within_tolerance = true;
  for (const auto& op : workload.operations()) {
    fhe::Ciphertext output;
    const auto samples = time_runs_ms(options.common, [&] { output = workload.run(op); });
    const double error = workload.max_abs_error(op, output);
    within_tolerance = within_tolerance && error <= 1e-4;
    table.add_row({op.name(), std::to_string(preset.active_q_rows(op.level)),
                   format_number(median(samples), 3), format_scientific(error, 3)});
    rows.push_back({{"operation", op.name()},
                    {"level", op.level},
                    {"active_q_rows", preset.active_q_rows(op.level)},
                    {"p_rows", preset.p_count},
                    {"samples_ms", samples},
                    {"median_ms", median(samples)},
                    {"max_abs_error", error}});
  }
  if (options.common.json) {
    std::cout << nlohmann::json{{"workload", "keyswitch"},
                                {"device", options.common.device},
                                {"preset", preset.name},
                                {"ntt_backend", engine->ntt_backend()},
                                {"memory_bytes", plan.total_bytes()},
                                {"memory_plan", plan.summary()},
                                {"operations", rows}}
                     .dump(2)
              << '\n';
  } else {
    std::cout << "keyswitch on " << options.common.device << ", " << preset.name << ", "
              << engine->ntt_backend() << "; memory: " << plan.summary() << "\n";
    table.print(std::cout);
  }
  if (!within_tolerance) {
    std::cerr << "fhelium: a key switch exceeded the 1e-4 error limit\n";
    throw CommandExit{1};
  }
}

}  // namespace

void add_workload_commands(CLI::App& app) {
  auto* workload = app.add_subcommand("workload", "Run one application workload");
  workload->require_subcommand(1);

  auto matvec = std::make_shared<MatvecOptions>();
  auto* m = workload->add_subcommand("matvec", "Encrypted d x d matrix-vector product");
  add_common_options(*m, matvec->common);
  m->add_option("--dim", matvec->config.dim, "Matrix dimension d (power of two)")->capture_default_str();
  m->add_option("--method", matvec->method, "diagonal or bsgs")->capture_default_str();
  m->add_option("--policy", matvec->policy, "Diagonal policy: batch or loop")->capture_default_str();
  m->add_option("--hoist", matvec->config.hoist, "Rotations per hoisted decomposition")
      ->capture_default_str();
  m->add_option("--batch", matvec->config.batch, "Terms per rescale under --policy batch")
      ->capture_default_str();
  m->add_option("--workers", matvec->config.workers, "Rotation-parallel workers")
      ->capture_default_str();
  m->add_option("--graph", matvec->graph, "on|off: capture into a CUDA graph (CUDA only)");
  m->callback([matvec] {
    matvec->config.seed = matvec->common.seed;
    run_matvec(*matvec);
  });

  auto keyswitch = std::make_shared<KeySwitchOptions>();
  auto* k = workload->add_subcommand("keyswitch", "Relinearization and rotation at chosen levels");
  add_common_options(*k, keyswitch->common);
  k->add_option("--levels", keyswitch->levels, "Comma-separated levels, e.g. 0,17,33")
      ->capture_default_str();
  k->add_option("--step", keyswitch->rotation_step, "Rotation step")->capture_default_str();
  k->callback([keyswitch] { run_keyswitch(*keyswitch); });
}

}  // namespace fhelium::cli
