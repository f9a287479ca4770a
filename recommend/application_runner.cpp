// The matvec and key-switch runners of the application suite.
#include "recommend/application_runner.h"

#include <optional>

#include "fhe/core/error.h"
#include "workloads/keyswitch/keyswitch_workload.h"
#include "workloads/matvec/matvec_workload.h"

namespace fhelium {
namespace {

void require_operation(std::size_t operation, std::size_t count) {
  if (operation >= count)
    throw fhe::InvalidArgument("application suite has no operation " + std::to_string(operation));
}

class MatvecRunner : public ApplicationRunner {
 public:
  MatvecRunner(fhe::CkksEngine& engine, const fhe::workloads::MatvecConfig& config)
      : engine_(engine), workload_(engine, config), input_(workload_.encrypt_input()) {}

  void stage(std::size_t operation) override {
    require_operation(operation, 1);
    // The fixed input buffer every run reads, as a captured graph would.
    output_.reset();
    staged_ = input_;
  }

  void run(std::size_t) override { output_ = workload_.run(staged_); }

  OperationCheck check(std::size_t operation) override {
    stage(operation);
    run(operation);
    OperationCheck check{workload_.max_abs_error(*output_), {}};
    const auto decrypted = engine_.decrypt_message(*output_);
    const auto& expected = workload_.problem().expected;
    std::vector<double> output, reference;
    for (int i = 0; i < workload_.config().dim; ++i) {
      output.push_back(decrypted[static_cast<std::size_t>(i)].real());
      reference.push_back(expected[i]);
    }
    check.details = {{"decrypted_output", output}, {"expected_output", reference}};
    return check;
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
      : workload_(engine, workload.levels, workload.rotation_step) {}

  // The workload keeps its per-level inputs and never modifies them.
  void stage(std::size_t operation) override {
    require_operation(operation, workload_.operations().size());
    output_.reset();
  }

  void run(std::size_t operation) override { output_ = workload_.run(workload_.operations()[operation]); }

  OperationCheck check(std::size_t operation) override {
    stage(operation);
    run(operation);
    return {workload_.max_abs_error(workload_.operations()[operation], *output_), nlohmann::json::object()};
  }

 private:
  fhe::workloads::KeySwitchWorkload workload_;
  std::optional<fhe::Ciphertext> output_;
};

}  // namespace

double application_error_limit(const ApplicationWorkload& workload) {
  return workload.kind == ApplicationWorkloadKind::matvec ? kMatvecErrorLimit : kKeySwitchErrorLimit;
}

void require_runnable_on(const fhe::DeviceSpec& device) {
  if (device.kind == fhe::DeviceKind::cuda)
    throw fhe::InvalidArgument("--suite application on " + device.str() +
                               ": the matvec and key-switch workloads run on the CPU evaluator "
                               "(fhe::Evaluator) until a CUDA evaluator drives them; use --device cpu");
}

std::unique_ptr<ApplicationRunner> make_application_runner(fhe::CkksEngine& engine,
                                                           const ApplicationWorkload& workload) {
  require_runnable_on(engine.device());
  if (workload.kind == ApplicationWorkloadKind::matvec)
    return std::make_unique<MatvecRunner>(engine, workload.matvec);
  return std::make_unique<KeySwitchRunner>(engine, workload);
}

nlohmann::json application_input_recipe(const ApplicationWorkload& workload) {
  if (workload.kind == ApplicationWorkloadKind::matvec) {
    return {{"engine", "fhe::CkksEngine(preset, {.device, .ntt_backend = backend, .seed = seed}); "
                       "generate_keys(fhe::workloads::matvec_rotation_steps(config))"},
            {"problem", "fhe::workloads::make_matvec_problem(dim, slots, seed): matrix uniform in "
                        "[-1, 1] / sqrt(dim), vector uniform in [-1, 1]; the vector tiled over all "
                        "slots and encrypted once with encrypt_message at level 0"}};
  }
  return {{"engine", "fhe::CkksEngine(preset, {.device, .ntt_backend = backend, .seed = seed}); "
                     "generate_keys({rotation_step})"},
          {"inputs", "fhe::workloads::KeySwitchWorkload: per level in ascending order, slot values "
                     "(re, im) uniform in [-1, 1] from std::mt19937_64(seed + 101), encrypt_message at "
                     "the level, then multiply(fresh, fresh) for the 3-part relinearization input"}};
}

}  // namespace fhelium
