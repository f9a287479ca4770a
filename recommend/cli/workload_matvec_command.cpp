// `fhelium workload matvec`: one encrypted d x d matrix-vector product
// (diagonal or BSGS) on the CPU, on cuda:N as CudaMatvec (graph replays and
// eager runs, both timed with CUDA events), or with --gpus G as one process
// per GPU with an NCCL reduction; prints latency, the memory plan and
// max_abs_error.
#include <algorithm>
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "evaluator/switch_key_layout.h"
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
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/matvec_workload.h"
#include "workloads/memory_plan.h"
#include "workloads/matvec/multi_gpu_share.h"
#if FHELIUM_HAS_CUDA
#include "workloads/matvec/cuda_matvec.h"
#endif
#if FHELIUM_HAS_NCCL
#include "workloads/matvec/multi_gpu_nccl_matvec.h"
#endif

namespace fhelium::cli {
namespace {

struct MatvecOptions {
  CommonOptions common;
  std::string method = "diagonal";
  std::string policy = "batch";
  std::string graph;  // on|off; empty = on for CUDA, off for the CPU
  fhe::workloads::MatvecConfig config;
  int baby_steps = 0;    // --baby-steps as given (config.baby_steps only when given)
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
          {"baby_steps", options.config.method == fhe::workloads::MatvecMethod::bsgs
                             ? nlohmann::json(fhe::workloads::bsgs_baby_steps(options.config))
                             : nlohmann::json(nullptr)},
          {"batch", options.config.batch},
          {"workers", options.config.workers},
          {"graph", graph ? "on" : "off"},
          {"rotations", fhe::workloads::matvec_rotation_count(options.config)},
          {"memory_bytes", plan.total_bytes()},
          {"memory_plan", plan.summary()},
          {"run", run_json(options.common)},
          {"build", build_json()}};
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
                           static_cast<double>(fhe::device_switch_key_bytes(engine.preset()));
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
  const bool lazy = options.config.policy == fhe::workloads::DiagonalPolicy::lazy_moddown;
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
               "reduction (after a barrier, outside the graph): CUDA events on rank 0 around ncclRecv + modular add" +
                   std::string(lazy ? " + ModDown-and-rescale" : "")},
              {"reduction", lazy ? "ncclSend/ncclRecv of each extended partial sum (QP rows, before ModDown) to "
                                   "rank 0, added mod q_i by the evaluator, then one ModDown-and-rescale"
                                 : "ncclSend/ncclRecv of each partial sum to rank 0, added mod q_i by the evaluator"},
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
  const auto plan = fhe::workloads::plan_matvec_memory(preset, options.config, device.kind);
  fhe::require_device(device);
  const DeviceMemory memory = available_device_memory(device);
  fhe::workloads::require_fits(preset, options.config, device.kind, memory.available_bytes, memory.description);
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

}  // namespace

void add_workload_matvec_command(CLI::App& workload) {
  auto matvec = std::make_shared<MatvecOptions>();
  auto* m = workload.add_subcommand("matvec", "Encrypted d x d matrix-vector product");
  add_common_options(*m, matvec->common);
  m->add_option("--dim", matvec->config.dim, "Matrix dimension d (power of two)")->capture_default_str();
  m->add_option("--method", matvec->method, "diagonal or bsgs")->capture_default_str();
  m->add_option("--policy", matvec->policy, "Diagonal policy: batch, loop or lazy-moddown")->capture_default_str();
  m->add_option("--hoist", matvec->config.hoist, "Rotations per hoisted decomposition")
      ->capture_default_str();
  auto* baby_steps = m->add_option("--baby-steps", matvec->baby_steps, fhe::workloads::kBabyStepsHelp);
  auto* batch = m->add_option("--batch", matvec->config.batch, "Terms per rescale under --policy batch")
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
  m->callback([matvec, gpus, timeout, rank_fd, device, batch, baby_steps] {
    matvec->config.seed = matvec->common.seed;
    if (baby_steps->count() > 0) matvec->config.baby_steps = matvec->baby_steps;  // a given 0 is refused
    if (batch->count() > 0 && matvec->policy != "batch")
      throw fhe::InvalidArgument("--batch applies only to --policy batch (got --policy " + matvec->policy + ")");
    if (rank_fd->count() > 0) {
      run_started_rank(matvec->rank_fd);
    } else if (gpus->count() > 0) {
      run_matvec_multi_gpu(*matvec, device->count() > 0);
    } else {
      if (timeout->count() > 0) throw fhe::InvalidArgument("--timeout-s applies only with --gpus");
      run_matvec(*matvec);
    }
  });
}

}  // namespace fhelium::cli
