// One backend's application workload, built once over its engine: what the
// application suite stages before a sample (untimed), runs as the sample
// (timed) and checks against the plaintext reference (untimed), operation
// by operation. The matvec has one operation; the key-switch schedule has
// relinearize and rotate per level.
#pragma once

#include <cstddef>
#include <memory>

#include <nlohmann/json.hpp>

#include "fhe/ckks/engine.h"
#include "recommend/application_workload.h"
#include "recommend/sample_timer.h"

namespace fhelium {

// Decryption-error limits of the application gate: SPEC 5 for the matvec;
// a key switch gets the primitive suite's abort limit.
inline constexpr double kMatvecErrorLimit = 5e-5;
inline constexpr double kKeySwitchErrorLimit = 1e-4;

double application_error_limit(const ApplicationWorkload& workload);

struct OperationCheck {
  double max_abs_error = 0.0;
  nlohmann::json details;  // workload-specific (matvec: decrypted and expected outputs)
};

class ApplicationRunner {
 public:
  virtual ~ApplicationRunner() = default;
  // Untimed: free the previous output and put the input in place.
  virtual void stage(std::size_t operation) = 0;
  // Timed: the operation from the staged input to its output ciphertext.
  virtual void run(std::size_t operation) = 0;
  // One timed run: by default `timer` around run() between device-wide
  // synchronisations; the GPU matvec times its own stream instead.
  virtual double time_ms(std::size_t operation, SampleTimer& timer);
  // Untimed: stage, run once, decrypt and compare with the reference.
  virtual OperationCheck check(std::size_t operation) = 0;
};

// On the CPU both workloads run through fhe::Evaluator; on CUDA only the
// matvec has a runner (CudaMatvec). Throws InvalidArgument for the key-switch
// workload on a CUDA device, so that host work is never timed and reported
// as a GPU's.
void require_runnable_on(ApplicationWorkloadKind kind, const fhe::DeviceSpec& device);

// Builds the workload over `engine`, which must already hold the keys of
// application_rotation_steps(workload) and outlive the runner. Encodes
// the matvec diagonals (on CUDA: and uploads them with the keys) and
// encrypts the inputs (never timed).
std::unique_ptr<ApplicationRunner> make_application_runner(fhe::CkksEngine& engine,
                                                           const ApplicationWorkload& workload);

// How a failing backend's inputs follow from the seed, for its saved file.
nlohmann::json application_input_recipe(const ApplicationWorkload& workload);

}  // namespace fhelium
