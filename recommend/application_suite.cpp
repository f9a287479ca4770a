// The application suite on fhe::CkksEngine and the workloads.
#include "recommend/application_suite.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "fhe/ckks/engine.h"
#include "fhe/core/error.h"
#include "recommend/application_runner.h"
#include "recommend/level_rows.h"
#include "recommend/sample_timer.h"
#include "recommend/suite_catalog.h"
#include "workloads/matvec/matvec_problem.h"

namespace fhelium {
namespace {

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// A limit as it is written in the documentation: 5e-5, 1e-4.
std::string limit_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0e", value);
  std::string out = text;
  const std::size_t e = out.find("e-0");
  return e == std::string::npos ? out : out.erase(e + 2, 1);
}

// What one matvec sample does, in the terms of the configuration.
// On CUDA the sample is one launch of CudaMatvec: a graph replay or an eager
// enqueue, its workers being CUDA streams.
std::string matvec_includes(const fhe::Preset& preset, const fhe::workloads::MatvecConfig& c,
                            const std::string& operation, bool cuda, bool graph) {
  using fhe::workloads::MatvecMethod;
  const std::string d = std::to_string(c.dim);
  const bool lazy = c.policy == fhe::workloads::DiagonalPolicy::lazy_moddown;
  const std::string hoist = " hoisted in chunks of " + std::to_string(c.hoist) +
                            " (one decomposition and basis extension per chunk, then per step "
                            "permutation, key inner product" + (lazy ? ")" : ", ModDown)");
  std::string rotations;
  if (c.method == MatvecMethod::diagonal) {
    rotations = std::to_string(fhe::workloads::matvec_rotation_count(c)) + " rotations" + hoist;
  } else {
    const int g = fhe::workloads::bsgs_baby_steps(c);
    rotations = std::to_string(g - 1) + " baby-step rotations" + hoist + ", " +
                std::to_string(fhe::workloads::bsgs_giant_steps(c) - 1) + " giant-step rotations of the inner sums" +
                (lazy ? " (each inner sum over QP rotated in that form: only its c1 brought down to Q and key switched)" : "");
  }
  const std::string rescales =
      lazy ? "every product summed over the extended rows QP, then one ModDown and rescale (one division by P q_0)"
      : c.policy == fhe::workloads::DiagonalPolicy::batch
          ? "one rescale per " + std::to_string(c.batch) + " summed products of " +
                (c.method == MatvecMethod::bsgs ? "an inner sum" : "a worker") + ", and one for the rest"
          : "one rescale per product";
  const std::string launch = !cuda ? "the whole "
                             : graph ? "one replay of the captured CUDA graph of the whole "
                                     : "one eager launch (no graph) of the whole ";
  const std::string workers = cuda ? " rotation-parallel CUDA stream(s) (forked and joined with events)"
                                   : " rotation-parallel worker thread(s)";
  return operation + ": " + launch + d + " x " + d + " matvec from the staged input ciphertext at " +
         level_rows_text(preset, 0) + " to the output ciphertext: " + rotations + ", " + d +
         " plaintext multiplies by the encoded diagonals, additions, " + rescales + ", " +
         std::to_string(c.workers) + workers + " and the sum of their partial results";
}

// The per-level key switches of one sample, as the boundary lists them.
std::vector<std::string> keyswitch_includes(const fhe::Preset& preset, const ApplicationWorkload& w,
                                            const std::string& how) {
  std::vector<std::string> includes;
  for (int level : w.levels) {
    includes.push_back("relinearize@level" + std::to_string(level) + ": " + how +
                       "relinearization key switch of a 3-part product at " + level_rows_text(preset, level));
    includes.push_back("rotate@level" + std::to_string(level) + ": " + how + "rotation by " +
                       std::to_string(w.rotation_step) + " slot(s) with its Galois key at " +
                       level_rows_text(preset, level));
  }
  return includes;
}

std::string keys_excluded(const ApplicationWorkload& w) {
  const std::string keys = w.kind == ApplicationWorkloadKind::matvec
                               ? std::to_string(application_rotation_steps(w).size()) + " Galois keys"
                               : "the Galois key of step " + std::to_string(w.rotation_step);
  return "engine construction, NTT plan and key generation (secret, public, relinearization and " + keys + ")";
}

TimedBoundary matvec_boundary(const fhe::Preset& preset, const ApplicationWorkload& w, const std::string& operation,
                              bool cuda) {
  const std::string diagonals = std::to_string(w.matvec.dim) + " diagonals";
  if (cuda) {
    return {{matvec_includes(preset, w.matvec, operation, true, w.graph)},
            {keys_excluded(w) + " and their upload",
             "encoding and upload of the " + diagonals +
                 ", allocation of every device buffer and the graph capture (once per backend, in the "
                 "correctness check)",
             "encryption of the input (once per backend, on the host)",
             "staging: copying the input ciphertext into the fixed device input buffer (before each "
             "sample, ordered before the start event)",
             "download, decryption and the error check (the correctness gate)"},
            "start CUDA event on the matvec's stream, the launch on that stream, stop event on the same "
            "stream, host waits on it; elapsed time from cudaEventElapsedTime"};
  }
  return {{matvec_includes(preset, w.matvec, operation, false, false),
           "allocation of the intermediate and output ciphertexts"},
          {keys_excluded(w), "encoding of the " + diagonals + " and encryption of the input (once per backend)",
           "staging: copying the input ciphertext into the fixed input buffer and freeing the "
           "previous output (before each sample)",
           "decryption and the error check (the correctness gate)"},
          "std::chrono::steady_clock read before and after the synchronous call on the calling thread "
          "(rotation-parallel workers are joined before it returns)"};
}

TimedBoundary keyswitch_boundary(const fhe::Preset& preset, const ApplicationWorkload& w, bool cuda) {
  if (cuda) {
    const std::string how = w.graph ? "one replay of the captured CUDA graph of one "
                                    : "one eager enqueue (no graph) of one ";
    TimedBoundary boundary{keyswitch_includes(preset, w, how), {}, {}};
    boundary.excludes = {
        keys_excluded(w) + " and their upload",
        "the inputs of each level: encryption of random slots on the host, their upload and the device "
        "tensor product giving the 3-part relinearization input; allocation of the output buffer (once "
        "per backend)",
        "download, decryption and the error check (the correctness gate)"};
    if (w.graph)
      boundary.excludes.push_back("the CUDA graph capture of each operation (once per backend, in the "
                                  "correctness check)");
    boundary.synchronisation =
        "start CUDA event on the evaluator's stream, the key switch on that stream, stop event on the "
        "same stream, host waits on it; elapsed time from cudaEventElapsedTime";
    return boundary;
  }
  TimedBoundary boundary{keyswitch_includes(preset, w, ""), {}, {}};
  boundary.includes.push_back("allocation of the output ciphertext");
  boundary.excludes = {keys_excluded(w),
                       "the inputs of each level: encryption of random slots and the tensor product giving "
                       "the 3-part relinearization input (once per backend)",
                       "freeing the previous output (before each sample)",
                       "decryption and the error check (the correctness gate)"};
  boundary.synchronisation =
      "std::chrono::steady_clock read before and after the synchronous call on the calling thread";
  return boundary;
}

class ApplicationSuite : public Suite {
 public:
  ApplicationSuite(const fhe::Preset& preset, const fhe::DeviceSpec& device,
                   const ApplicationWorkload& workload, std::uint64_t seed)
      : preset_(preset),
        device_(device),
        workload_(workload),
        seed_(seed),
        operations_(application_operations(workload)),
        timer_(device) {}

  std::string_view name() const override { return kApplicationSuite; }
  const std::vector<std::string>& operations() const override { return operations_; }

  TimedBoundary timed_boundary() const override {
    const bool cuda = device_.kind == fhe::DeviceKind::cuda;
    return workload_.kind == ApplicationWorkloadKind::matvec
               ? matvec_boundary(preset_, workload_, operations_[0], cuda)
               : keyswitch_boundary(preset_, workload_, cuda);
  }

  void prepare(const std::string& backend) override {
    if (states_.count(backend)) return;
    auto state = std::make_unique<BackendState>();
    state->engine = std::make_unique<fhe::CkksEngine>(
        preset_.name, fhe::EngineOptions{.device = device_.str(), .ntt_backend = backend, .seed = seed_});
    // The keys are the same words for every backend: generated once, then
    // adopted (and on a GPU the matvec's device copy lent) by the others.
    std::shared_ptr<const fhe::cuda::DeviceKeys> device_keys;
    if (states_.empty()) {
      state->engine->generate_keys(application_rotation_steps(workload_));
    } else {
      const BackendState& first = *states_.begin()->second;
      state->engine->adopt_keys(*first.engine);
      device_keys = first.runner->device_keys();
    }
    state->runner = make_application_runner(*state->engine, workload_, std::move(device_keys));
    states_[backend] = std::move(state);
  }

  CorrectnessRecord check_correctness(const std::string& backend) override {
    ApplicationRunner& runner = *state(backend).runner;
    const double limit = application_error_limit(workload_);
    CorrectnessRecord record;
    record.backend = backend;
    record.passed = true;
    record.checks = {{"abort_limit", limit}, {"max_abs_error", nlohmann::json::object()}};
    const bool inject_fault = std::find(workload_.injected_faults.begin(), workload_.injected_faults.end(),
                                        backend) != workload_.injected_faults.end();
    if (inject_fault) record.checks["injected_fault"] = kInjectedFaultDescription;
    std::size_t worst = 0;
    double worst_error = 0.0;
    for (std::size_t op = 0; op < operations_.size(); ++op) {
      const OperationCheck check = runner.check(op, inject_fault);
      record.checks["max_abs_error"][operations_[op]] = check.max_abs_error;
      if (!check.details.empty()) record.checks["details"][operations_[op]] = check.details;
      if (!(check.max_abs_error <= limit)) record.passed = false;  // also catches NaN
      if (op == 0 || !(check.max_abs_error <= worst_error)) {
        worst = op;
        worst_error = check.max_abs_error;
      }
    }
    if (record.passed) {
      record.summary =
          "decryption error within " + limit_text(limit) + " (worst " + scientific(worst_error) + ")";
      return record;
    }
    record.summary = "decryption error " + scientific(worst_error) + " in " + operations_[worst] +
                     " exceeds the limit " + limit_text(limit) + (inject_fault ? " (test-only injected fault)" : "");
    record.failing_input = {{"suite", kApplicationSuite},
                            {"workload", workload_to_json(workload_)},
                            {"backend", backend},
                            {"device", device_.str()},
                            {"preset", preset_.name},
                            {"preset_primes_hash", fhe::preset_primes_hash(preset_)},
                            {"seed", seed_},
                            {"recipe", application_input_recipe(workload_)},
                            {"worst_operation", operations_[worst]},
                            {"checks", record.checks}};
    return record;
  }

  void restore_input(const std::string& backend, std::size_t operation) override {
    state(backend).runner->stage(operation);
  }

  double time_once(const std::string& backend, std::size_t operation) override {
    return state(backend).runner->time_ms(operation, timer_);
  }

 private:
  struct BackendState {
    std::unique_ptr<fhe::CkksEngine> engine;
    std::unique_ptr<ApplicationRunner> runner;  // refers to *engine; declared after it
  };

  BackendState& state(const std::string& backend) { return prepared_state(states_, backend, "application"); }

  const fhe::Preset& preset_;
  fhe::DeviceSpec device_;
  ApplicationWorkload workload_;
  std::uint64_t seed_;
  std::vector<std::string> operations_;
  SampleTimer timer_;
  std::map<std::string, std::unique_ptr<BackendState>> states_;
};

}  // namespace

std::unique_ptr<Suite> make_application_suite(const fhe::Preset& preset, const fhe::DeviceSpec& device,
                                              const ApplicationWorkload& workload, std::uint64_t seed) {
  return std::make_unique<ApplicationSuite>(preset, device, workload, seed);
}

}  // namespace fhelium
