// Relinearization and rotation at chosen levels.
#include "workloads/keyswitch/keyswitch_workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>

#include "fhe/core/error.h"

namespace fhe::workloads {

std::string KeySwitchOperation::name() const {
  return std::string(kind == KeySwitchKind::relinearize ? "relinearize" : "rotate") + "@level" +
         std::to_string(level);
}

std::vector<KeySwitchOperation> key_switch_operations(const std::vector<int>& levels) {
  std::vector<KeySwitchOperation> operations;
  for (int level : levels) {
    operations.push_back({KeySwitchKind::relinearize, level});
    operations.push_back({KeySwitchKind::rotate, level});
  }
  return operations;
}

std::vector<int> parse_levels(std::string_view text, int levels) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    int level = -1;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), level);
    if (item.empty() || error != std::errc() || end != item.data() + item.size()) {
      throw InvalidArgument("invalid level list '" + std::string(text) +
                            "' (expected comma-separated integers such as 0,17,33)");
    }
    if (level < 0 || level >= levels) {
      throw InvalidArgument("level " + std::to_string(level) + " is outside [0, " +
                            std::to_string(levels - 1) + "] for a key-switch workload");
    }
    out.push_back(level);
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

KeySwitchWorkload::KeySwitchWorkload(CkksEngine& engine, std::vector<int> levels, int rotation_step)
    : engine_(engine), evaluator_(std::make_unique<Evaluator>(engine)), rotation_step_(rotation_step) {
  engine_.relinearization_key();  // throws when keys are missing
  engine_.galois_key(engine_.galois_element_for_step(rotation_step_));
  std::mt19937_64 rng(engine_.seed() + 101);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int level : levels) {
    engine_.preset().active_q_rows(level);  // validates
    LevelInput in;
    in.level = level;
    in.values.resize(engine_.slot_count());
    for (auto& v : in.values) v = {unit(rng), unit(rng)};
    in.fresh = engine_.encrypt_message(in.values, level);
    in.product = evaluator_->multiply(in.fresh, in.fresh);
    inputs_.push_back(std::move(in));
  }
  operations_ = key_switch_operations(levels);
}

const KeySwitchWorkload::LevelInput& KeySwitchWorkload::input(int level) const {
  for (const LevelInput& in : inputs_) {
    if (in.level == level) return in;
  }
  throw InvalidArgument("key-switch workload has no input at level " + std::to_string(level));
}

Ciphertext KeySwitchWorkload::run(const KeySwitchOperation& op) const {
  const LevelInput& in = input(op.level);
  return op.kind == KeySwitchKind::relinearize ? evaluator_->relinearize(in.product)
                                               : evaluator_->rotate(in.fresh, rotation_step_);
}

double KeySwitchWorkload::max_abs_error(const KeySwitchOperation& op, const Ciphertext& output) const {
  const LevelInput& in = input(op.level);
  const auto decoded = engine_.decrypt_message(output);
  const std::size_t slots = in.values.size();
  double worst = 0;
  for (std::size_t j = 0; j < slots; ++j) {
    const std::complex<double> expected =
        op.kind == KeySwitchKind::relinearize
            ? in.values[j] * in.values[j]
            : in.values[(j + slots + static_cast<std::size_t>(rotation_step_ % static_cast<int>(slots))) % slots];
    worst = std::max(worst, std::abs(decoded[j] - expected));
  }
  return worst;
}

}  // namespace fhe::workloads
