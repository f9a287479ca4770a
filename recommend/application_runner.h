// One backend's application workload, built once over its engine: what the
// application suite stages before a sample (untimed), runs as the sample
// (timed) and checks against the plaintext reference (untimed), operation
// by operation, on the CPU or on the engine's GPU. The matvec has one
// operation; the key-switch schedule has relinearize and rotate per level.
#pragma once

#include <cstddef>
#include <memory>

#include <nlohmann/json.hpp>

#include "fhe/ckks/engine.h"
#include "recommend/application_workload.h"
#include "recommend/sample_timer.h"

namespace fhe::cuda {
struct DeviceKeys;
}

namespace fhelium {

// Decryption-error limits of the application gate: SPEC 5 for the matvec;
// a key switch gets the primitive suite's abort limit.
inline constexpr double kMatvecErrorLimit = 5e-5;
inline constexpr double kKeySwitchErrorLimit = 1e-4;

double application_error_limit(const ApplicationWorkload& workload);

struct OperationCheck {
  double max_abs_error = 0.0;
  nlohmann::json details;  // workload-specific (matvec: decrypted and expected outputs; keyswitch: worst slot)
};

// The fault --inject-fault plants (test-only): in part 0 of the output,
// the first word of every row plus 1 modulo that row's prime, so the output
// decrypts far from the reference.
inline constexpr const char* kInjectedFaultDescription =
    "test-only fault injected (--inject-fault): in part 0 of every output, the first word of each row "
    "was increased by 1 modulo the row's prime before decryption";

class ApplicationRunner {
 public:
  explicit ApplicationRunner(const fhe::Preset& preset) : preset_(preset) {}
  virtual ~ApplicationRunner() = default;
  // Untimed: free the previous output and put the input in place.
  virtual void stage(std::size_t operation) = 0;
  // Timed: the operation from the staged input to its output ciphertext.
  virtual void run(std::size_t operation) = 0;
  // One timed run: by default `timer` around run() between device-wide
  // synchronisations; the GPU workloads time their own stream instead.
  virtual double time_ms(std::size_t operation, SampleTimer& timer);
  // Untimed: stage, run once, fetch the output to the host, plant the
  // injected fault when asked, decrypt and compare with the reference. The
  // same path on every device, so a fault planted here reaches the gate
  // exactly as a wrong device output would.
  OperationCheck check(std::size_t operation, bool inject_fault = false);
  // The device keys this runner holds (the CUDA matvec), lent to the next
  // backend's runner; null when it holds none to lend.
  virtual std::shared_ptr<const fhe::cuda::DeviceKeys> device_keys() const { return nullptr; }

 protected:
  // The output of the last run, on the host (CUDA: downloaded).
  virtual fhe::Ciphertext fetch_output() = 0;
  // `output`'s error against the reference of `operation`.
  virtual OperationCheck verify(std::size_t operation, const fhe::Ciphertext& output) const = 0;

 private:
  const fhe::Preset& preset_;
};

// Builds the workload over `engine`, which must already hold the keys of
// application_rotation_steps(workload) and outlive the runner: on the CPU
// through fhe::Evaluator, on CUDA as CudaMatvec or CudaKeySwitchWorkload
// (keys, inputs and every buffer uploaded or allocated here). Encodes the
// matvec diagonals and encrypts the inputs (never timed). `shared_device_keys`
// (another runner's device_keys(), its engine's key set adopted by this
// engine) are used by the CUDA matvec instead of uploading its own.
std::unique_ptr<ApplicationRunner> make_application_runner(
    fhe::CkksEngine& engine, const ApplicationWorkload& workload,
    std::shared_ptr<const fhe::cuda::DeviceKeys> shared_device_keys = nullptr);

// How a failing backend's inputs follow from the seed, for its saved file.
nlohmann::json application_input_recipe(const ApplicationWorkload& workload);

}  // namespace fhelium
