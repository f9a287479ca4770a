// Seeded matrix/vector, tiled slot vectors and rotation-step sets.
#include "workloads/matvec/matvec_problem.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "workloads/memory_plan.h"

namespace fhe::workloads {

MatvecProblem make_matvec_problem(int dim, std::size_t slots, std::uint64_t seed) {
  MatvecProblem p;
  p.dim = dim;
  p.slots = slots;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double norm = 1.0 / std::sqrt(static_cast<double>(dim));
  p.matrix.resize(dim, dim);
  for (int i = 0; i < dim; ++i) {
    for (int j = 0; j < dim; ++j) p.matrix(i, j) = unit(rng) * norm;
  }
  p.vector.resize(dim);
  for (int j = 0; j < dim; ++j) p.vector(j) = unit(rng);
  p.expected = p.matrix * p.vector;
  return p;
}

std::vector<double> MatvecProblem::input_slots() const {
  std::vector<double> slots_out(slots);
  for (std::size_t t = 0; t < slots; ++t) slots_out[t] = vector(static_cast<int>(t % dim));
  return slots_out;
}

std::vector<double> MatvecProblem::diagonal_slots(int s, int pre_rotation) const {
  std::vector<double> out(slots);
  if (s >= dim) return out;
  for (std::size_t t = 0; t < slots; ++t) {
    // Right rotation by r: out[t] = diag[t - r].
    const std::size_t source = (t + slots - static_cast<std::size_t>(pre_rotation) % slots) % slots;
    const int row = static_cast<int>(source % dim);
    out[t] = matrix(row, (row + s) % dim);
  }
  return out;
}

double MatvecProblem::max_abs_error(const std::vector<double>& result_slots) const {
  double worst = 0;
  for (int i = 0; i < dim; ++i) worst = std::max(worst, std::abs(result_slots[i] - expected(i)));
  return worst;
}

namespace {

// Giant steps of g baby steps each that cover d diagonals.
int giant_steps_of(int dim, int g) { return (dim + g - 1) / g; }

}  // namespace

double lazy_bsgs_cost(int dim, int g) {
  const int giants = giant_steps_of(dim, g);
  static_assert(kLazyBsgsFusedInnerSums == 5, "the fused baby step's costs are measured at 4 and 5 sums");
  const double baby = giants > kLazyBsgsFusedInnerSums    ? 1 + kStoredBabyStepSumCost * giants
                      : giants == kLazyBsgsFusedInnerSums ? kFiveSumBabyStepCost
                                                          : 1.0;
  return baby * (g - 1) + kLazyGiantStepCost * (giants - 1);
}

int bsgs_baby_steps(const MatvecConfig& config) {
  if (config.baby_steps) return *config.baby_steps;
  if (config.policy == DiagonalPolicy::lazy_moddown) {
    int best = 2;
    double best_cost = lazy_bsgs_cost(config.dim, best);
    for (int g = 3; g <= config.dim; ++g) {
      const double cost = lazy_bsgs_cost(config.dim, g);
      if (cost < best_cost) {
        best = g;
        best_cost = cost;
      }
    }
    return best;
  }
  int g = 1;
  while (g * g < config.dim) g *= 2;
  return g;
}

int bsgs_giant_steps(const MatvecConfig& config) { return giant_steps_of(config.dim, bsgs_baby_steps(config)); }

int matvec_diagonal_count(const MatvecConfig& config) {
  return config.method == MatvecMethod::bsgs ? bsgs_giant_steps(config) * bsgs_baby_steps(config) : config.dim;
}

std::vector<std::vector<int>> hoist_chunks(int begin, int end, int hoist) {
  std::vector<std::vector<int>> chunks;
  for (int first = begin; first < end; first += hoist) {
    chunks.emplace_back();
    for (int s = first; s < std::min(end, first + hoist); ++s) chunks.back().push_back(s);
  }
  return chunks;
}

int matvec_rotation_count(const MatvecConfig& config) {
  if (config.method == MatvecMethod::diagonal) return config.dim - 1;
  return (bsgs_baby_steps(config) - 1) + (bsgs_giant_steps(config) - 1);
}

std::vector<int> matvec_rotation_steps(const MatvecConfig& config) {
  std::vector<int> steps;
  if (config.method == MatvecMethod::diagonal) {
    for (int s = 1; s < config.dim; ++s) steps.push_back(s);
  } else {
    const int g = bsgs_baby_steps(config);
    for (int i = 1; i < g; ++i) steps.push_back(i);
    for (int j = 1; j < bsgs_giant_steps(config); ++j) steps.push_back(j * g);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

}  // namespace fhe::workloads
