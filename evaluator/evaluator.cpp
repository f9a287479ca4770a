// Homomorphic operations, relinearization, rescale and Galois automorphisms.
#include "evaluator/evaluator.h"

#include <string>

#include "fhe/ckks/galois.h"
#include "fhe/ckks/poly_arith.h"
#include "evaluator/operand_checks.h"
#include "fhe/core/error.h"

namespace fhe {

Evaluator::Evaluator(const CkksEngine& engine)
    : engine_(engine),
      schedules_(engine.preset()),
      rescale_schedules_(static_cast<std::size_t>(engine.preset().levels)),
      mod_down_rescale_schedules_(static_cast<std::size_t>(engine.preset().levels)),
      switcher_(engine.rns_basis(), engine.ntt_plan()) {}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  const Preset& preset = engine_.preset();
  check_ciphertext(a, "add", preset, 3);
  check_ciphertext(b, "add", preset, 3);
  check_same_level(a.level, b.level, "add", preset);
  check_same_scale(a.scale, b.scale, "add", preset, a.level);
  const Ciphertext& longer = a.size() >= b.size() ? a : b;
  const Ciphertext& shorter = a.size() >= b.size() ? b : a;
  Ciphertext out = longer;
  for (std::size_t i = 0; i < shorter.size(); ++i) add_inplace(out.parts[i], shorter.parts[i], engine_.rns_basis());
  return out;
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  return add(a, negate(b));
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  check_ciphertext(a, "negate", engine_.preset(), 3);
  Ciphertext out = a;
  for (RnsPoly& part : out.parts) negate_inplace(part, engine_.rns_basis());
  return out;
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const Plaintext& b) const {
  return combine_plain_into_part0(a, b, "add_plain", add_inplace);
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const Plaintext& b) const {
  return combine_plain_into_part0(a, b, "sub_plain", sub_inplace);
}

// add_plain and sub_plain: the same level and scale checks, then the
// plaintext enters part 0 only (m + c0 + c1 s decrypts to the sum).
Ciphertext Evaluator::combine_plain_into_part0(const Ciphertext& a, const Plaintext& b, const char* op,
                                               PlainCombine combine) const {
  const Preset& preset = engine_.preset();
  check_ciphertext(a, op, preset, 3);
  check_plaintext(b, op, preset);
  check_same_level(a.level, b.level, op, preset);
  check_same_scale(a.scale, b.scale, op, preset, a.level);
  Ciphertext out = a;
  combine(out.parts[0], b.poly, engine_.rns_basis());
  return out;
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a, const Plaintext& b) const {
  const Preset& preset = engine_.preset();
  check_ciphertext(a, "multiply_plain", preset, 3);
  check_plaintext(b, "multiply_plain", preset);
  check_same_level(a.level, b.level, "multiply_plain", preset);
  check_scale_fits(a.scale * b.scale, a.level, "multiply_plain", preset);
  Ciphertext out = a;
  for (RnsPoly& part : out.parts) multiply_inplace(part, b.poly, engine_.rns_basis());
  out.scale = a.scale * b.scale;
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  const Preset& preset = engine_.preset();
  const RnsBasis& basis = engine_.rns_basis();
  check_ciphertext(a, "multiply", preset, 2);
  check_ciphertext(b, "multiply", preset, 2);
  check_same_level(a.level, b.level, "multiply", preset);
  check_scale_fits(a.scale * b.scale, a.level, "multiply", preset);
  Ciphertext out{{a.parts[0], a.parts[0], a.parts[1]}, a.level, a.scale * b.scale};
  multiply_inplace(out.parts[0], b.parts[0], basis);            // a0 b0
  multiply_inplace(out.parts[1], b.parts[1], basis);            // a0 b1
  multiply_add_inplace(out.parts[1], a.parts[1], b.parts[0], basis);  // + a1 b0
  multiply_inplace(out.parts[2], b.parts[1], basis);            // a1 b1
  return out;
}

Ciphertext Evaluator::relinearize(const Ciphertext& a) const {
  check_ciphertext(a, "relinearize", engine_.preset(), 3);
  if (a.size() == 2) return a;
  const KeySwitchSchedule& schedule = schedules_.at(a.level);
  Ciphertext out{{a.parts[0], a.parts[1]}, a.level, a.scale};
  RnsPoly switched0, switched1;
  switcher_.extend(schedule, a.parts[2]);
  switcher_.apply_key(schedule, engine_.relinearization_key(), nullptr, switched0, switched1);
  add_inplace(out.parts[0], switched0, engine_.rns_basis());
  add_inplace(out.parts[1], switched1, engine_.rns_basis());
  return out;
}

Ciphertext Evaluator::multiply_relinearize(const Ciphertext& a, const Ciphertext& b) const {
  return relinearize(multiply(a, b));
}

const RnsScaleDown& Evaluator::scale_down_schedule(ScaleDownSlots& slots, int level,
                                                   RnsScaleDown (*make)(const Preset&, int)) const {
  auto& slot = slots[static_cast<std::size_t>(level)];
  if (!slot) slot = std::make_unique<RnsScaleDown>(make(engine_.preset(), level));
  return *slot;
}

Ciphertext Evaluator::rescale(const Ciphertext& a) const {
  const Preset& preset = engine_.preset();
  check_ciphertext(a, "rescale", preset, 3);
  check_rescalable(preset, a.level, "rescale", "ciphertext");
  const RnsScaleDown& schedule = scale_down_schedule(rescale_schedules_, a.level, make_rescale);
  const auto dropped_id = static_cast<std::size_t>(a.level);
  Ciphertext out{{}, a.level + 1, a.scale / static_cast<double>(preset.q_primes[dropped_id])};
  for (const RnsPoly& part : a.parts) {
    RnsPoly scaled(schedule.kept_rows.first, schedule.kept_rows.count, part.n(), true);
    schedule.apply(engine_.ntt_plan(), part.row(dropped_id + 1), part.row(dropped_id),
                   scaled.data(), rescale_scratch_);
    out.parts.push_back(std::move(scaled));
  }
  return out;
}

Ciphertext Evaluator::drop_level(const Ciphertext& a, int target_level) const {
  const Preset& preset = engine_.preset();
  check_ciphertext(a, "drop_level", preset, 3);
  const std::size_t rows = preset.active_q_rows(target_level);  // validates the level
  if (target_level < a.level) {
    throw InvalidArgument("drop_level: target level " + std::to_string(target_level) +
                          " is below the ciphertext's level " + std::to_string(a.level) +
                          " (preset " + preset.name + ")");
  }
  Ciphertext out{{}, target_level, a.scale};
  for (const RnsPoly& part : a.parts) {
    out.parts.push_back(part.copy_rows({static_cast<std::size_t>(target_level), rows}));
  }
  return out;
}

std::vector<Ciphertext> Evaluator::apply_galois(const Ciphertext& a,
                                                const std::vector<std::uint64_t>& galois_elements) const {
  const std::vector<RotationKey> keys = prepare_rotations(a, galois_elements, "rotate");
  const KeySwitchSchedule& schedule = schedules_.at(a.level);
  std::vector<Ciphertext> results;
  results.reserve(galois_elements.size());
  for (const RotationKey& key : keys) {
    if (!key.key) {
      results.push_back(a);
      continue;
    }
    Ciphertext out{{RnsPoly(), RnsPoly()}, a.level, a.scale};
    RnsPoly rotated0;
    apply_galois_ntt(a.parts[0], *key.table, rotated0);
    switcher_.apply_key(schedule, *key.key, key.table, out.parts[0], out.parts[1]);
    add_inplace(out.parts[0], rotated0, engine_.rns_basis());
    results.push_back(std::move(out));
  }
  return results;
}

Ciphertext Evaluator::rotate(const Ciphertext& a, int step) const {
  return apply_galois(a, {engine_.galois_element_for_step(step)}).front();
}

Ciphertext Evaluator::conjugate(const Ciphertext& a) const {
  return apply_galois(a, {conjugation_galois_element(engine_.preset().log_n)}).front();
}

std::vector<Ciphertext> Evaluator::rotate_many_by_steps(const Ciphertext& a,
                                                        const std::vector<int>& steps) const {
  return apply_galois(a, engine_.galois_elements_for_steps(steps));
}

std::pair<RnsPoly, RnsPoly> Evaluator::key_switch(const RnsPoly& input, const KeySwitchKey& key) const {
  const KeySwitchSchedule& schedule = schedules_.at(static_cast<int>(input.first_row()));
  std::pair<RnsPoly, RnsPoly> out;
  switcher_.extend(schedule, input);
  switcher_.apply_key(schedule, key, nullptr, out.first, out.second);
  return out;
}

}  // namespace fhe
