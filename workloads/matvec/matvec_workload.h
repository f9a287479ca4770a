// The encrypted d x d matrix-vector product on the CPU evaluator (SPEC
// section 7): diagonal method with hoisted rotations in chunks of `hoist`
// and the batch, loop or lazy-moddown diagonal policy, or BSGS; the rotation steps are
// partitioned across `workers` threads (one Evaluator each) whose partial
// sums are reduced at the end. The CUDA path with graph capture builds on
// the same problem and step partition.
#pragma once

#include <memory>
#include <vector>

#include "evaluator/evaluator.h"
#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/engine.h"
#include "workloads/matvec/matvec_config.h"
#include "workloads/matvec/matvec_problem.h"

namespace fhe::workloads {

class MatvecWorkload {
 public:
  // Validates the configuration and encodes the diagonals once. The engine
  // must hold Galois keys for matvec_rotation_steps(config) (checked).
  MatvecWorkload(CkksEngine& engine, MatvecConfig config);

  const MatvecConfig& config() const { return config_; }
  const MatvecProblem& problem() const { return problem_; }
  // Number of ciphertext rotations one product performs.
  int rotation_count() const;

  Ciphertext encrypt_input();
  Ciphertext run(const Ciphertext& input) const;
  // max |y_i - (Mx)_i| over the d outputs after decryption.
  double max_abs_error(const Ciphertext& result) const;

 private:
  Ciphertext run_diagonal(const Ciphertext& input) const;
  Ciphertext run_diagonal_lazy(const Ciphertext& input) const;
  Ciphertext run_bsgs(const Ciphertext& input) const;
  Ciphertext run_bsgs_lazy(const Ciphertext& input) const;

  CkksEngine& engine_;
  MatvecConfig config_;
  MatvecProblem problem_;
  // Diagonal plaintexts at level 0 (bsgs: pre-rotated by their giant step).
  std::vector<Plaintext> diagonals_;
  // One evaluator per worker, built once so that timed runs reuse their
  // key-switch schedules and scratch buffers.
  std::vector<std::unique_ptr<Evaluator>> evaluators_;
};

// Splits [0, count) into `parts` contiguous ranges as even as possible
// (empty ranges when parts > count), the partition of rotation steps across
// workers.
std::vector<std::pair<int, int>> partition_range(int count, int parts);

}  // namespace fhe::workloads
