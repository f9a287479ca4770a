// Level-specific key-switch workloads on the CPU (SPEC section 7):
// relinearization and rotation key switching at chosen levels, each with
// that level's active Q rows and the P rows. The operations, inputs and
// reference are the KeySwitchProblem's (shared with the CUDA workload);
// this class adds the 3-part products and runs each key switch through
// fhe::Evaluator.
#pragma once

#include <memory>
#include <vector>

#include "evaluator/evaluator.h"
#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/engine.h"
#include "workloads/keyswitch/keyswitch_problem.h"

namespace fhe::workloads {

class KeySwitchWorkload {
 public:
  // Needs the relinearization key and the Galois key of `rotation_step`.
  KeySwitchWorkload(CkksEngine& engine, std::vector<int> levels, int rotation_step = 1);

  const KeySwitchProblem& problem() const { return problem_; }
  // Two operations per level, relinearize then rotate, in level order.
  const std::vector<KeySwitchOperation>& operations() const { return problem_.operations(); }
  // The operation's output for the prepared input of its level.
  Ciphertext run(const KeySwitchOperation& op) const;
  // max |decrypted - expected| of the operation's output.
  double max_abs_error(const KeySwitchOperation& op, const Ciphertext& output) const {
    return problem_.max_abs_error(op, output);
  }

 private:
  std::unique_ptr<Evaluator> evaluator_;  // built once: schedules cached across runs
  KeySwitchProblem problem_;
  std::vector<Ciphertext> products_;  // per input level: 3-part fresh * fresh, before relinearization
};

}  // namespace fhe::workloads
