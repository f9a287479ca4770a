// Operations, levels, inputs and reference of the key-switch workloads.
#include "workloads/keyswitch/keyswitch_problem.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
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

void check_rotation_step(int step, std::size_t slots) {
  const auto n = static_cast<long long>(slots);
  const std::string range = "use a step in 1.." + std::to_string(slots - 1) + " or its negative";
  if (step % n == 0) {
    throw InvalidArgument("rotation step " + std::to_string(step) + " is a multiple of the " + std::to_string(slots) +
                          " slots (no key switch); " + range);
  }
  // A step acts modulo the slots; a larger one would be recorded as asked
  // for while another is timed.
  if (std::llabs(step) >= n) {
    throw InvalidArgument("rotation step " + std::to_string(step) + " is outside the " + std::to_string(slots) +
                          " slots (it acts as " + std::to_string(step % n) + "); " + range);
  }
}

void KeySwitchProblem::require_keys(const CkksEngine& engine, int rotation_step) {
  check_rotation_step(rotation_step, engine.slot_count());
  engine.relinearization_key();  // throws when keys are missing
  engine.galois_key(engine.galois_element_for_step(rotation_step));
}

KeySwitchProblem::KeySwitchProblem(CkksEngine& engine, const std::vector<int>& levels, int rotation_step)
    : engine_(engine), rotation_step_(rotation_step) {
  require_keys(engine, rotation_step);
  for (int level : levels) engine.preset().active_q_rows(level);  // validates before any encryption
  std::mt19937_64 rng(engine.seed() + 101);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int level : levels) {
    LevelInput in;
    in.level = level;
    in.values.resize(engine.slot_count());
    for (auto& v : in.values) v = {unit(rng), unit(rng)};
    in.fresh = engine.encrypt_message(in.values, level);
    inputs_.push_back(std::move(in));
  }
  operations_ = key_switch_operations(levels);
}

std::size_t KeySwitchProblem::input_index(int level) const {
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].level == level) return i;
  }
  throw InvalidArgument("key-switch workload has no input at level " + std::to_string(level));
}

const KeySwitchProblem::LevelInput& KeySwitchProblem::input(int level) const {
  return inputs_[input_index(level)];
}

std::complex<double> KeySwitchProblem::expected(const KeySwitchOperation& op, std::size_t slot) const {
  const std::vector<std::complex<double>>& values = input(op.level).values;
  if (op.kind == KeySwitchKind::relinearize) return values[slot] * values[slot];
  // Left rotation by `step` (negative = right): slot j receives slot j + step.
  const auto slots = static_cast<long long>(values.size());
  const long long source = ((static_cast<long long>(slot) + rotation_step_) % slots + slots) % slots;
  return values[static_cast<std::size_t>(source)];
}

KeySwitchError KeySwitchProblem::error(const KeySwitchOperation& op, const Ciphertext& output) const {
  const auto decoded = engine_.decrypt_message(output);
  KeySwitchError worst;
  for (std::size_t j = 0; j < decoded.size(); ++j) {
    const std::complex<double> expected_value = expected(op, j);
    const double error = std::abs(decoded[j] - expected_value);
    // `!(error <= worst)` also records a NaN, so a broken output never reads as 0.
    if (j == 0 || !(error <= worst.max_abs_error)) {
      worst = {error, j, decoded[j], expected_value};
      if (std::isnan(error)) break;
    }
  }
  return worst;
}

}  // namespace fhe::workloads
