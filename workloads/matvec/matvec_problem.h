// The plaintext side of the matvec workload: a seeded random d x d matrix
// and vector, their exact product (Eigen), the slot vectors CKKS encodes
// (tiled to fill every slot, so a cyclic slot rotation by s < d is a cyclic
// rotation of the d-vector) and the rotation steps of each method.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "workloads/matvec/matvec_config.h"

namespace fhe::workloads {

struct MatvecProblem {
  int dim = 0;
  std::size_t slots = 0;
  Eigen::MatrixXd matrix;  // entries uniform in [-1, 1] / sqrt(d), so |y| stays ~1
  Eigen::VectorXd vector;  // entries uniform in [-1, 1]
  Eigen::VectorXd expected;

  // x tiled over all slots.
  std::vector<double> input_slots() const;
  // Diagonal s tiled: slot t holds M[t mod d][(t + s) mod d], right-rotated
  // by `pre_rotation` slots (BSGS folds the giant step into the diagonal).
  std::vector<double> diagonal_slots(int s, int pre_rotation = 0) const;
  // Largest |y_i - expected_i| over the first d slots of a decrypted result.
  double max_abs_error(const std::vector<double>& result_slots) const;
};

MatvecProblem make_matvec_problem(int dim, std::size_t slots, std::uint64_t seed);

// Baby-step count g of the BSGS split d = g * (d / g): config.baby_steps
// when set (validate: a power of two in [2, d]), else
// - batch / loop: the smallest power of two with g * g >= d (16 at d = 128):
//   a baby and a giant step cost about the same, one key switch each;
// - lazy-moddown: the power of two minimising (g - 1) + kLazyGiantStepCost
//   (d/g - 1) (32 at d = 128): a baby step is one key term with no ModUp or
//   ModDown, a giant step pays the ModDown of its inner sum's c1 + ModUp +
//   its term.
int bsgs_baby_steps(const MatvecConfig& config);

// Cost of a lazy giant step in baby-step terms, fitted to the H200 sweep
// g = 16 / 32 / 64 at d = 128 (docs/performance.md, session 4): 6.2; per
// kernel in session 20, with the giant steps from the extended form, 6.2;
// the sweep again in session 38 (block diagonals): 5.8.
inline constexpr int kLazyGiantStepCost = 6;

// The rotation steps of each hoisted decomposition over [begin, end):
// consecutive runs of at most `hoist` steps (none when begin >= end).
std::vector<std::vector<int>> hoist_chunks(int begin, int end, int hoist);

// Ciphertext rotations one product performs: d - 1 (diagonal) or
// (g - 1) baby + (d/g - 1) giant steps (bsgs).
int matvec_rotation_count(const MatvecConfig& config);

// Rotation steps whose Galois keys a method needs (sorted, no zero).
std::vector<int> matvec_rotation_steps(const MatvecConfig& config);

}  // namespace fhe::workloads
