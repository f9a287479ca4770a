// `fhelium workload matvec` and `fhelium workload keyswitch`: run one
// application workload, print latency (median of timed runs after a
// warm-up), the memory plan and max_abs_error. On cuda:N the matvec runs
// as CudaMatvec and the key switches as CudaKeySwitchWorkload: graph
// replays and eager runs, both timed with CUDA events.
#include <algorithm>
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "fhe/ckks/engine.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "recommend/application_request.h"
#include "recommend/application_runner.h"
#include "recommend/cli/commands.h"
#include "recommend/device_memory.h"
#include "recommend/text_table.h"
#include "workloads/keyswitch/keyswitch_workload.h"
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/matvec_workload.h"
#include "workloads/memory_plan.h"
#include "workloads/matvec/multi_gpu_share.h"
#if FHELIUM_HAS_CUDA
#include "workloads/keyswitch/cuda_keyswitch_workload.h"
#include "workloads/matvec/cuda_matvec.h"
#endif
#if FHELIUM_HAS_NCCL
#include "workloads/matvec/multi_gpu_nccl_matvec.h"
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
  int gpus = 1;          // with --gpus: ranks, one process per GPU
  int timeout_s = 900;   // with --gpus: each rank's limit
  int rank_fd = -1;      // hidden: a started rank reads its message here
};

void check_matvec_error(double error) {
  if (error > 5e-5) {
    std::cerr << "fhelium: matvec error " << error << " exceeds the 5e-5 tolerance\n";
    throw CommandExit{1};
  }
}

nlohmann::json matvec_json(const MatvecOptions& options, const std::string& device, const std::string& ntt_backend,
                           bool graph, const fhe::workloads::MemoryPlan& plan) {
  return {{"workload", "matvec"},
          {"device", device},
          {"preset", options.common.preset},
          {"ntt_backend", ntt_backend},
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
  nlohmann::json out = matvec_json(options, engine.device().str(), engine.ntt_backend(), graph, plan);
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

#if FHELIUM_HAS_NCCL
// Prints the multi-GPU run: the latency of a sample is its slowest rank's
// part; the reduction to rank 0 is timed separately.
void report_matvec_multi_gpu(const MatvecOptions& options, const fhe::workloads::MultiGpuMatvecResult& run,
                             bool graph) {
  const fhe::workloads::MultiGpuModeResult& chosen = graph ? run.graph : run.eager;
  const bool equal = run.graph.result == run.eager.result;  // level, scale and every word
  const int gpus = run.request.gpus;
  nlohmann::json ranks = nlohmann::json::array();
  std::size_t slowest_rank = 0;
  for (std::size_t r = 0; r < run.shares.size(); ++r) {
    if (median(chosen.part_ms[r]) > median(chosen.part_ms[slowest_rank])) slowest_rank = r;
    ranks.push_back({{"rank", r},
                     {"device", "cuda:" + std::to_string(r)},
                     {"steps", {run.shares[r].first, run.shares[r].second}},
                     {"rotations", run.rank_rotations[r]},
                     {"memory_plan", run.rank_plans[r].summary()},
                     {"part_samples_ms", chosen.part_ms[r]},
                     {"part_median_ms", median(chosen.part_ms[r])},
                     {"graph_part_median_ms", median(run.graph.part_ms[r])},
                     {"eager_part_median_ms", median(run.eager.part_ms[r])}});
  }
  // The distributed product's whole latency: slowest part, then the reduction.
  std::vector<double> end_to_end_ms;
  for (std::size_t i = 0; i < chosen.slowest_ms.size(); ++i) {
    end_to_end_ms.push_back(chosen.slowest_ms[i] + chosen.reduction_ms[i]);
  }
  const std::string devices = "cuda:0" + (gpus > 1 ? "..cuda:" + std::to_string(gpus - 1) : std::string());
  nlohmann::json out = matvec_json(options, devices, run.request.ntt_backend, graph, run.rank_plans[0]);
  out.update({{"gpus", gpus},
              {"ranks", ranks},
              {"samples_ms", chosen.slowest_ms},
              {"median_ms", median(chosen.slowest_ms)},
              {"slowest_rank", slowest_rank},
              {"reduction_samples_ms", chosen.reduction_ms},
              {"reduction_median_ms", median(chosen.reduction_ms)},
              {"end_to_end_samples_ms", end_to_end_ms},
              {"end_to_end_median_ms", median(end_to_end_ms)},
              {"graph_median_ms", median(run.graph.slowest_ms)},
              {"eager_median_ms", median(run.eager.slowest_ms)},
              {"graph_reduction_median_ms", median(run.graph.reduction_ms)},
              {"eager_reduction_median_ms", median(run.eager.reduction_ms)},
              {"graph_equals_eager", equal},
              {"timing",
               "per rank: CUDA events around its launch (input staged before); sample latency = slowest rank; "
               "reduction (after a barrier, outside the graph): CUDA events on rank 0 around ncclRecv + modular add"},
              {"reduction", "ncclSend/ncclRecv of each partial sum to rank 0, added mod q_i by the evaluator"},
              {"max_abs_error", graph ? run.graph.max_abs_error : run.eager.max_abs_error}});
  const double error = out["max_abs_error"].get<double>();
  if (options.common.json) {
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << "matvec " << options.config.dim << "x" << options.config.dim << " "
              << out["method"].get<std::string>() << "/" << out["policy"].get<std::string>() << " on " << gpus
              << " GPU(s) (" << devices << "), " << options.common.preset << ", " << run.request.ntt_backend << ", "
              << options.config.workers << " worker(s) per GPU\n"
              << "latency (graph " << (graph ? "on" : "off") << "): " << format_number(median(chosen.slowest_ms), 3)
              << " ms (median of " << chosen.slowest_ms.size() << " samples, each the slowest rank; CUDA events)\n";
    for (std::size_t r = 0; r < run.shares.size(); ++r) {
      std::cout << "  rank " << r << " cuda:" << r << ": steps [" << run.shares[r].first << ", "
                << run.shares[r].second << "), " << run.rank_rotations[r] << " rotation keys, part "
                << format_number(median(chosen.part_ms[r]), 3) << " ms\n";
    }
    std::cout << "reduction to rank 0 (NCCL send/recv + modular add): " << format_number(median(chosen.reduction_ms), 3)
              << " ms; slowest part + reduction: " << format_number(median(end_to_end_ms), 3) << " ms\n"
              << "graph replay: " << format_number(median(run.graph.slowest_ms), 3) << " ms, eager: "
              << format_number(median(run.eager.slowest_ms), 3) << " ms, words equal: " << (equal ? "yes" : "NO")
              << "\n"
              << "memory (rank 0): " << run.rank_plans[0].summary() << "\n"
              << "max_abs_error: " << format_scientific(error, 3) << "\n";
  }
  if (!equal) {
    std::cerr << "fhelium: graph replay and eager results differ\n";
    throw CommandExit{1};
  }
  check_matvec_error(error);
}
#endif

// `--gpus G`: one process per GPU (this one is rank 0), NCCL reduction.
// Everything a rank could refuse is checked here, before any rank starts.
void run_matvec_multi_gpu(MatvecOptions& options, bool device_given) {
  validate_counts(options.common);
  options.config.method = fhe::workloads::parse_method(options.method);
  options.config.policy = fhe::workloads::parse_policy(options.policy);
  if (options.timeout_s < 1) throw fhe::InvalidArgument("--timeout-s must be at least 1");
  if (device_given && options.common.device != "cuda:0") {
    throw fhe::InvalidArgument("--gpus runs rank r on cuda:r; leave out --device (got " + options.common.device + ")");
  }
  const fhe::DeviceSpec device{fhe::DeviceKind::cuda, 0};
  const bool graph = parse_graph_option(options.graph, device);
  const fhe::Preset& preset = fhe::preset_by_name(options.common.preset);
  fhe::workloads::validate(options.config, preset.slots());
  const fhe::GpuInventory inventory = fhe::query_gpus();
  fhe::workloads::validate_gpu_count(options.config, options.gpus, static_cast<int>(inventory.gpus.size()),
                                     inventory.status);
#if FHELIUM_HAS_NCCL
  for (int r = 0; r < options.gpus; ++r) {
    const DeviceMemory memory = available_device_memory({fhe::DeviceKind::cuda, r});
    fhe::workloads::require_plan_fits(
        preset, fhe::workloads::plan_rank_memory(preset, options.config, {r, options.gpus}),
        "matvec rank " + std::to_string(r) + " of " + std::to_string(options.gpus), memory.available_bytes,
        memory.description);
  }
  fhe::workloads::MultiGpuMatvecRequest request{.preset = options.common.preset,
                                                .ntt_backend = options.common.backend,
                                                .engine_seed = options.common.seed,
                                                .config = options.config,
                                                .gpus = options.gpus,
                                                .warmup = options.common.warmup,
                                                .runs = options.common.runs,
                                                .timeout_s = options.timeout_s};
  const auto run = fhe::workloads::run_multi_gpu_matvec(request, {{"/proc/self/exe", "workload", "matvec"}});
  report_matvec_multi_gpu(options, run, graph);
#else
  (void)graph;
  throw fhe::InvalidArgument("--gpus needs a build with NCCL (CUDA on and NCCL found; see FHELIUM_NCCL)");
#endif
}

// A rank started by run_matvec_multi_gpu: everything comes from its message.
void run_started_rank(int message_fd) {
#if FHELIUM_HAS_NCCL
  fhe::workloads::run_matvec_rank(message_fd);
#else
  (void)message_fd;
  throw fhe::InvalidArgument("--rank-fd needs a build with NCCL");
#endif
}

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

  nlohmann::json out = matvec_json(options, device.str(), engine->ntt_backend(), graph, plan);
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
  std::vector<std::string> columns = {"operation", "active Q rows", "median ms"};
  if (cuda) columns.insert(columns.end(), {"graph ms", "eager ms", "words equal"});
  columns.push_back("max_abs_error");
  TextTable table(columns);
  nlohmann::json rows = nlohmann::json::array();
  bool within_tolerance = true, words_equal = true;
  for (const KeySwitchRow& r : results) {
    within_tolerance = within_tolerance && r.max_abs_error <= kKeySwitchErrorLimit;
    std::vector<std::string> cells = {r.op.name(), std::to_string(preset.active_q_rows(r.op.level)),
                                      format_number(median(r.samples_ms), 3)};
    nlohmann::json row = {{"operation", r.op.name()},
                          {"level", r.op.level},
                          {"active_q_rows", preset.active_q_rows(r.op.level)},
                          {"p_rows", preset.p_count},
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
                          {"device", engine.device().str()},
                          {"preset", preset.name},
                          {"ntt_backend", engine.ntt_backend()},
                          {"rotation_step", options.rotation_step},
                          {"memory_bytes", plan.total_bytes()},
                          {"memory_plan", plan.summary()},
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
  const auto plan = fhe::workloads::plan_keyswitch_memory(preset, levels);
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
  auto* gpus = m->add_option("--gpus", matvec->gpus,
                             "Run on cuda:0..G-1, one process per GPU, partial sums reduced to rank 0 with NCCL");
  auto* timeout = m->add_option("--timeout-s", matvec->timeout_s, "With --gpus: each rank's time limit in seconds")
                      ->capture_default_str();
  auto* rank_fd = m->add_option("--rank-fd", matvec->rank_fd)->group("");  // set by rank 0 only
  auto* device = m->get_option("--device");
  m->callback([matvec, gpus, timeout, rank_fd, device] {
    matvec->config.seed = matvec->common.seed;
    if (rank_fd->count() > 0) {
      run_started_rank(matvec->rank_fd);
    } else if (gpus->count() > 0) {
      run_matvec_multi_gpu(*matvec, device->count() > 0);
    } else {
      if (timeout->count() > 0) throw fhe::InvalidArgument("--timeout-s applies only with --gpus");
      run_matvec(*matvec);
    }
  });

  auto keyswitch = std::make_shared<KeySwitchOptions>();
  auto* k = workload->add_subcommand("keyswitch", "Relinearization and rotation at chosen levels");
  add_common_options(*k, keyswitch->common);
  k->add_option("--levels", keyswitch->levels, "Comma-separated levels, e.g. 0,17,33")
      ->capture_default_str();
  k->add_option("--step", keyswitch->rotation_step, "Rotation step")->capture_default_str();
  k->add_option("--graph", keyswitch->graph, "on|off: time graph replays or eager enqueues (CUDA only)");
  k->callback([keyswitch] { run_keyswitch(*keyswitch); });
}

}  // namespace fhelium::cli
