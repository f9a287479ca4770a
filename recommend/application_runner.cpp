// The matvec and key-switch runners of the application suite, CPU and CUDA,
// and the gate's shared check path.
#include "recommend/application_runner.h"

#include <optional>

#include "fhe/core/error.h"
#include "workloads/keyswitch/keyswitch_workload.h"
#include "workloads/matvec/matvec_workload.h"
#if FHELIUM_HAS_CUDA
#include "workloads/keyswitch/cuda_keyswitch_workload.h"
#include "workloads/matvec/cuda_matvec.h"
#endif

namespace fhelium {
namespace {

void require_operation(std::size_t operation, std::size_t count) {
  if (operation >= count)
    throw fhe::InvalidArgument("application suite has no operation " + std::to_string(operation));
}

// The gate's record of a matvec output: its error, with the decrypted and
// expected outputs for a failing backend's file.
OperationCheck matvec_check(const fhe::CkksEngine& engine, const fhe::workloads::MatvecProblem& problem,
                            int dim, double error, const fhe::Ciphertext& result) {
  const auto decrypted = engine.decrypt_message(result);
  std::vector<double> output, reference;
  for (int i = 0; i < dim; ++i) {
    output.push_back(decrypted[static_cast<std::size_t>(i)].real());
    reference.push_back(problem.expected[i]);
  }
  return {error, {{"decrypted_output", output}, {"expected_output", reference}}};
}

// The gate's record of a key switch's output: its error and the worst slot.
OperationCheck keyswitch_check(const fhe::workloads::KeySwitchProblem& problem, std::size_t operation,
                               const fhe::Ciphertext& output) {
  const fhe::workloads::KeySwitchError e = problem.error(problem.operations()[operation], output);
  return {e.max_abs_error,
          {{"worst_slot", e.worst_slot},
           {"decrypted", {e.decrypted.real(), e.decrypted.imag()}},
           {"expected", {e.expected.real(), e.expected.imag()}}}};
}

// Plants the injected fault (kInjectedFaultDescription) in a host output.
// Every row, because decoding reads only as many trailing rows as the
// message needs: a fault in one leading row would not show.
void inject_output_fault(const fhe::Preset& preset, fhe::Ciphertext& output) {
  if (output.parts.empty() || output.parts[0].words().empty())
    throw fhe::InvalidArgument("inject fault: the output has no words");
  fhe::RnsPoly& part = output.parts[0];
  for (std::size_t row = part.first_row(); row < part.end_row(); ++row) {
    std::uint64_t& word = part.row(row)[0];
    word = (word + 1) % preset.qp_primes()[row];
  }
}

class MatvecRunner : public ApplicationRunner {
 public:
  MatvecRunner(fhe::CkksEngine& engine, const fhe::workloads::MatvecConfig& config)
      : ApplicationRunner(engine.preset()),
        engine_(engine),
        workload_(engine, config),
        input_(workload_.encrypt_input()) {}

  void stage(std::size_t operation) override {
    require_operation(operation, 1);
    // The fixed input buffer every run reads, as a captured graph would.
    output_.reset();
    staged_ = input_;
  }

  void run(std::size_t) override { output_ = workload_.run(staged_); }

 protected:
  fhe::Ciphertext fetch_output() override { return *output_; }

  OperationCheck verify(std::size_t, const fhe::Ciphertext& output) const override {
    return matvec_check(engine_, workload_.problem(), workload_.config().dim, workload_.max_abs_error(output),
                        output);
  }

 private:
  fhe::CkksEngine& engine_;
  fhe::workloads::MatvecWorkload workload_;
  fhe::Ciphertext input_;   // encrypted once
  fhe::Ciphertext staged_;  // what a run reads
  std::optional<fhe::Ciphertext> output_;
};

class KeySwitchRunner : public ApplicationRunner {
 public:
  KeySwitchRunner(fhe::CkksEngine& engine, const ApplicationWorkload& workload)
      : ApplicationRunner(engine.preset()), workload_(engine, workload.levels, workload.rotation_step) {}

  // The workload keeps its per-level inputs and never modifies them.
  void stage(std::size_t operation) override {
    require_operation(operation, workload_.operations().size());
    output_.reset();
  }

  void run(std::size_t operation) override { output_ = workload_.run(workload_.operations()[operation]); }

 protected:
  fhe::Ciphertext fetch_output() override { return *output_; }

  OperationCheck verify(std::size_t operation, const fhe::Ciphertext& output) const override {
    return keyswitch_check(workload_.problem(), operation, output);
  }

 private:
  fhe::workloads::KeySwitchWorkload workload_;
  std::optional<fhe::Ciphertext> output_;
};

#if FHELIUM_HAS_CUDA
// The matvec on the engine's GPU: keys and diagonals uploaded and every
// buffer allocated once, at construction; a sample is one launch (a replay
// of the graph captured on the first launch, or an eager enqueue) on the
// fixed input buffer, timed with CUDA events on the matvec's stream.
class CudaMatvecRunner : public ApplicationRunner {
 public:
  CudaMatvecRunner(fhe::CkksEngine& engine, const ApplicationWorkload& workload,
                   std::shared_ptr<const fhe::cuda::DeviceKeys> shared_keys)
      : ApplicationRunner(engine.preset()),
        engine_(engine),
        matvec_(engine, workload.matvec,
                {.assume_free_bytes = 0, .share = {}, .shared_keys = std::move(shared_keys)}),
        graph_(workload.graph),
        input_(engine.encrypt_message(matvec_.problem().input_slots())) {}

  // Copies the host input into the fixed device buffer, ordered on the
  // matvec's stream before the next launch and its start event.
  void stage(std::size_t operation) override {
    require_operation(operation, 1);
    matvec_.stage(input_);
  }

  // The harness gates first, so the graph capture of the first launch
  // happens in the (untimed) correctness check.
  void run(std::size_t) override { matvec_.launch(graph_); }

  double time_ms(std::size_t, SampleTimer&) override { return matvec_.time_launch_ms(graph_); }

  std::shared_ptr<const fhe::cuda::DeviceKeys> device_keys() const override { return matvec_.evaluator().keys(); }

 protected:
  fhe::Ciphertext fetch_output() override { return matvec_.download_result(); }

  OperationCheck verify(std::size_t, const fhe::Ciphertext& output) const override {
    return matvec_check(engine_, matvec_.problem(), matvec_.config().dim, matvec_.max_abs_error(output), output);
  }

 private:
  const fhe::CkksEngine& engine_;
  fhe::workloads::CudaMatvec matvec_;
  bool graph_;
  fhe::Ciphertext input_;  // encrypted once, on the host
};

// The key switches on the engine's GPU: keys, the per-level inputs and the
// output buffer resident from construction; a sample is one key switch (a
// replay of its graph, captured in the untimed correctness check, or an
// eager enqueue) timed with CUDA events on the evaluator's stream.
class CudaKeySwitchRunner : public ApplicationRunner {
 public:
  CudaKeySwitchRunner(fhe::CkksEngine& engine, const ApplicationWorkload& workload)
      : ApplicationRunner(engine.preset()),
        workload_(engine, workload.levels, workload.rotation_step),
        graph_(workload.graph) {}

  // The inputs stay untouched on the device and every launch overwrites
  // the one output buffer: nothing to restore.
  void stage(std::size_t operation) override { require_operation(operation, workload_.operations().size()); }

  void run(std::size_t operation) override { workload_.launch(operation, graph_); }

  double time_ms(std::size_t operation, SampleTimer&) override {
    return workload_.time_launch_ms(operation, graph_);
  }

 protected:
  fhe::Ciphertext fetch_output() override { return workload_.download_output(); }

  OperationCheck verify(std::size_t operation, const fhe::Ciphertext& output) const override {
    return keyswitch_check(workload_.problem(), operation, output);
  }

 private:
  fhe::workloads::CudaKeySwitchWorkload workload_;
  bool graph_;
};
#endif

}  // namespace

double application_error_limit(const ApplicationWorkload& workload) {
  return workload.kind == ApplicationWorkloadKind::matvec ? kMatvecErrorLimit : kKeySwitchErrorLimit;
}

double ApplicationRunner::time_ms(std::size_t operation, SampleTimer& timer) {
  timer.synchronize_device();
  timer.start();
  run(operation);
  timer.synchronize_device();
  return timer.stop_ms();
}

OperationCheck ApplicationRunner::check(std::size_t operation, bool inject_fault) {
  stage(operation);
  run(operation);
  fhe::Ciphertext output = fetch_output();
  if (inject_fault) inject_output_fault(preset_, output);
  return verify(operation, output);
}

std::unique_ptr<ApplicationRunner> make_application_runner(
    fhe::CkksEngine& engine, const ApplicationWorkload& workload,
    [[maybe_unused]] std::shared_ptr<const fhe::cuda::DeviceKeys> shared_device_keys) {  // CUDA builds only
  const bool matvec = workload.kind == ApplicationWorkloadKind::matvec;
  if (engine.device().kind == fhe::DeviceKind::cuda) {
#if FHELIUM_HAS_CUDA
    if (matvec) return std::make_unique<CudaMatvecRunner>(engine, workload, std::move(shared_device_keys));
    return std::make_unique<CudaKeySwitchRunner>(engine, workload);
#else
    throw fhe::DeviceError("device " + engine.device().str() + " requested but this build has no CUDA support");
#endif
  }
  if (matvec) return std::make_unique<MatvecRunner>(engine, workload.matvec);
  return std::make_unique<KeySwitchRunner>(engine, workload);
}

nlohmann::json application_input_recipe(const ApplicationWorkload& workload) {
  if (workload.kind == ApplicationWorkloadKind::matvec) {
    return {{"engine", "fhe::CkksEngine(preset, {.device, .ntt_backend = backend, .seed = seed}); "
                       "generate_keys(fhe::workloads::matvec_rotation_steps(config)) on the first "
                       "backend's engine, adopt_keys of it on the others (the same words)"},
            {"problem", "fhe::workloads::make_matvec_problem(dim, slots, seed): matrix uniform in "
                        "[-1, 1] / sqrt(dim), vector uniform in [-1, 1]; the vector tiled over all "
                        "slots and encrypted once with encrypt_message at level 0"}};
  }
  return {{"engine", "fhe::CkksEngine(preset, {.device, .ntt_backend = backend, .seed = seed}); "
                     "generate_keys({rotation_step}) on the first backend's engine, adopt_keys of it on "
                     "the others (the same words)"},
          {"inputs", "fhe::workloads::KeySwitchProblem: per level in ascending order, slot values "
                     "(re, im) uniform in [-1, 1] from std::mt19937_64(seed + 101), encrypt_message at "
                     "the level, then multiply(fresh, fresh) for the 3-part relinearization input "
                     "(on CUDA the product is computed on the device, with the same words)"}};
}

}  // namespace fhelium
