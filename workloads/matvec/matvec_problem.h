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
  // by `pre_rotation` slots (BSGS folds the giant step into the diagonal);
  // zero for s >= d (the padding of a BSGS split whose g does not divide d).
  std::vector<double> diagonal_slots(int s, int pre_rotation = 0) const;
  // Largest |y_i - expected_i| over the first d slots of a decrypted result.
  double max_abs_error(const std::vector<double>& result_slots) const;
};

MatvecProblem make_matvec_problem(int dim, std::size_t slots, std::uint64_t seed);

// Baby-step count g of the BSGS split of the d diagonals into
// ceil(d / g) giant steps of g: config.baby_steps when set (validate: in
// [2, d]), else
// - batch / loop: the smallest power of two with g * g >= d (16 at d = 128):
//   a baby and a giant step cost about the same, one key switch each;
// - lazy-moddown: the g in [2, d] minimising lazy_bsgs_cost (26 at d = 128,
//   5 giant steps of which the last has 24 diagonals).
int bsgs_baby_steps(const MatvecConfig& config);

// Giant steps G = ceil(d / g) of the BSGS split, the first a rotation by 0.
int bsgs_giant_steps(const MatvecConfig& config);

// Diagonals a method multiplies: d (diagonal), G g (bsgs: the split pads
// the last giant step with zero diagonals s >= d, MatvecProblem).
int matvec_diagonal_count(const MatvecConfig& config);

// The lazy BSGS's costs in units of a baby step whose inner sums (up to
// four) are fused into its key term: one key streamed once for every inner
// sum it feeds. From the kernel timelines of the lazy BSGS on an H100
// (session 72, d = 128, radix16): a giant step (its ModUp and key term,
// 490 us, and its share of the batched ModDown of the inner sums' c1,
// about 50 us) against 120 us a baby step term with four fused sums, 125
// with five. A stored baby step (more than kLazyBsgsFusedInnerSums giant
// steps, memory_plan.h: written, then read back by the plain products'
// pass, whose multiply-adds grow with the giant steps) costs
// 1 + kStoredBabyStepSumCost G: fitted to a sweep of g at d = 128 on an
// H100 (session 73: 1.47 at G = 6, 1.58 at G = 7; the model is within
// 0.6 % of all five measured splits; session 74: it orders five splits at
// d = 256 and three at d = 64 as an H100 ran them, its picks the fastest).
// Sessions 4-38 fitted a giant step at 6 stored baby steps on the H200,
// before the fusion.
inline constexpr double kLazyGiantStepCost = 4.5;
inline constexpr double kFiveSumBabyStepCost = 1.04;
inline constexpr double kStoredBabyStepSumCost = 0.08;

// The lazy BSGS's cost of a split into g baby steps, in those units.
double lazy_bsgs_cost(int dim, int g);

// The rotation steps of each hoisted decomposition over [begin, end):
// consecutive runs of at most `hoist` steps (none when begin >= end).
std::vector<std::vector<int>> hoist_chunks(int begin, int end, int hoist);

// Ciphertext rotations one product performs: d - 1 (diagonal) or
// (g - 1) baby + (G - 1) giant steps (bsgs).
int matvec_rotation_count(const MatvecConfig& config);

// Rotation steps whose Galois keys a method needs (sorted, no zero).
std::vector<int> matvec_rotation_steps(const MatvecConfig& config);

}  // namespace fhe::workloads
