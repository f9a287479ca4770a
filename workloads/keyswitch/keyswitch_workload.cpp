// Relinearization and rotation at chosen levels, on the CPU evaluator.
#include "workloads/keyswitch/keyswitch_workload.h"

namespace fhe::workloads {

KeySwitchWorkload::KeySwitchWorkload(CkksEngine& engine, std::vector<int> levels, int rotation_step)
    : evaluator_(std::make_unique<Evaluator>(engine)), problem_(engine, levels, rotation_step) {
  for (const KeySwitchProblem::LevelInput& in : problem_.inputs())
    products_.push_back(evaluator_->multiply(in.fresh, in.fresh));
}

Ciphertext KeySwitchWorkload::run(const KeySwitchOperation& op) const {
  const std::size_t i = problem_.input_index(op.level);
  return op.kind == KeySwitchKind::relinearize
             ? evaluator_->relinearize(products_[i])
             : evaluator_->rotate(problem_.inputs()[i].fresh, problem_.rotation_step());
}

}  // namespace fhe::workloads
