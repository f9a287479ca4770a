// Evaluator::accumulate_rotations, mod_down and mod_down_rescale: plaintext
// x rotation sums kept over the extended basis QP so that they share one
// ModDown.
#include <algorithm>
#include <cmath>
#include <string>

#include "evaluator/evaluator.h"
#include "evaluator/operand_checks.h"
#include "fhe/ckks/galois.h"
#include "fhe/ckks/poly_arith.h"
#include "fhe/core/error.h"

namespace fhe {
namespace {

// out's Q rows += P x in (in over the active Q rows).
void add_scaled_by_p(const RnsPoly& in, const KeySwitchSchedule& schedule, const RnsBasis& basis, RnsPoly& out) {
  const std::size_t n = in.n();
  for (std::size_t r = 0; r < schedule.active_q_rows.count; ++r) {
    const std::size_t id = schedule.active_q_rows.first + r;
    const std::uint64_t q = basis.prime(id);
    const std::uint64_t w = schedule.p_mod_q[r], w_shoup = schedule.p_mod_q_shoup[r];
    const std::uint64_t* x = in.row(id);
    std::uint64_t* y = out.row(id);
    for (std::size_t k = 0; k < n; ++k) y[k] = add_mod(y[k], mul_shoup(x[k], w, w_shoup, q), q);
  }
}

// out's Q rows = P x in (in over the active Q rows), out's P rows = 0: the
// extended form of a term that needs no key switch.
void lift_by_p(const RnsPoly& in, const KeySwitchSchedule& schedule, const RnsBasis& basis, RnsPoly& out) {
  const std::size_t n = in.n();
  std::fill(out.data(), out.data() + out.row_count() * n, 0);
  add_scaled_by_p(in, schedule, basis, out);
}

}  // namespace

// Checks `a`, looks every key up before any work (a missing one fails
// fast), then decomposes `a` once when some element needs a key switch.
// Shared by apply_galois and the extended sums.
std::vector<Evaluator::RotationKey> Evaluator::prepare_rotations(const Ciphertext& a,
                                                                 const std::vector<std::uint64_t>& galois_elements,
                                                                 const char* op) const {
  check_ciphertext(a, op, engine_.preset(), 2);
  std::vector<RotationKey> keys;
  bool any_switch = false;
  for (std::uint64_t g : galois_elements) {
    if (g == 1) {
      keys.push_back({nullptr, nullptr});
      continue;
    }
    keys.push_back({&engine_.galois_key(g), &engine_.galois_permutation(g)});
    any_switch = true;
  }
  if (any_switch) switcher_.extend(schedules_.at(a.level), a.parts[1]);
  return keys;
}

// (P sigma(c0) + IP_b, IP_a), the rotation before its ModDown; for step 0
// (no key) P x a itself.
void Evaluator::rotation_term(const Ciphertext& a, const RotationKey& key, RnsPoly& term0, RnsPoly& term1,
                              RnsPoly& scratch) const {
  const KeySwitchSchedule& schedule = schedules_.at(a.level);
  const RnsBasis& basis = engine_.rns_basis();
  if (!key.key) {
    lift_by_p(a.parts[0], schedule, basis, term0);
    lift_by_p(a.parts[1], schedule, basis, term1);
    return;
  }
  switcher_.inner_product(schedule, *key.key, key.table, term0.data(), term1.data());
  apply_galois_ntt(a.parts[0], *key.table, scratch);
  add_scaled_by_p(scratch, schedule, basis, term0);
}

void Evaluator::accumulate_rotations(const Ciphertext& a, const std::vector<int>& steps,
                                     const std::vector<const Plaintext*>& extended_plains, Ciphertext& sum) const {
  const Preset& preset = engine_.preset();
  const RnsBasis& basis = engine_.rns_basis();
  if (steps.empty() || steps.size() != extended_plains.size()) {
    throw InvalidArgument("accumulate_rotations: " + std::to_string(steps.size()) + " steps and " +
                          std::to_string(extended_plains.size()) + " plaintexts (one per step, at least one)");
  }
  const KeySwitchSchedule& schedule = schedules_.at(a.level);
  const ntt::RowRange ext = schedule.extended_rows;
  auto plain_scale = [](const Plaintext* plain) { return plain ? plain->scale : 1.0; };
  const double scale = a.scale * plain_scale(extended_plains.front());
  for (const Plaintext* plain : extended_plains) {
    if (plain && (plain->level != a.level || plain->poly.first_row() != ext.first ||
                  plain->poly.row_count() != ext.count || !plain->poly.ntt_form())) {
      throw InvalidArgument("accumulate_rotations: plaintexts must come from encode_extended at level " +
                            std::to_string(a.level) + " (preset " + preset.name + ")");
    }
    if (std::fabs(a.scale * plain_scale(plain) - scale) > 1e-9 * scale) {
      throw InvalidArgument("accumulate_rotations: the plaintexts' scales differ (preset " + preset.name + ")");
    }
  }
  if (!sum.parts.empty() && (sum.level != a.level || sum.size() != 2 || sum.parts[0].row_count() != ext.count ||
                             std::fabs(sum.scale - scale) > 1e-9 * scale)) {
    throw InvalidArgument("accumulate_rotations: the sum is not an extended sum at level " +
                          std::to_string(a.level) + " with scale a.scale x plaintext scale (preset " +
                          preset.name + ")");
  }
  const std::vector<RotationKey> keys =
      prepare_rotations(a, engine_.galois_elements_for_steps(steps), "accumulate_rotations");
  const std::size_t n = a.parts[0].n();
  if (sum.parts.empty()) {
    sum = Ciphertext{{RnsPoly(ext.first, ext.count, n, true), RnsPoly(ext.first, ext.count, n, true)}, a.level,
                     scale};
  }
  RnsPoly term0(ext.first, ext.count, n, true), term1(ext.first, ext.count, n, true), scratch;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    rotation_term(a, keys[i], term0, term1, scratch);
    if (extended_plains[i]) {
      multiply_add_inplace(sum.parts[0], term0, extended_plains[i]->poly, basis);
      multiply_add_inplace(sum.parts[1], term1, extended_plains[i]->poly, basis);
    } else {
      add_inplace(sum.parts[0], term0, basis);
      add_inplace(sum.parts[1], term1, basis);
    }
  }
}

std::vector<Ciphertext> Evaluator::rotate_many_extended(const Ciphertext& a, const std::vector<int>& steps) const {
  const std::vector<RotationKey> keys =
      prepare_rotations(a, engine_.galois_elements_for_steps(steps), "rotate_many_extended");
  const ntt::RowRange ext = schedules_.at(a.level).extended_rows;
  const std::size_t n = a.parts[0].n();
  std::vector<Ciphertext> terms;
  RnsPoly scratch;
  for (const RotationKey& key : keys) {
    Ciphertext term{{RnsPoly(ext.first, ext.count, n, true), RnsPoly(ext.first, ext.count, n, true)}, a.level,
                    a.scale};
    rotation_term(a, key, term.parts[0], term.parts[1], scratch);
    terms.push_back(std::move(term));
  }
  return terms;
}

// Throws unless `x` is a 2-part extended sum over the extended rows of its level.
void Evaluator::check_extended_sum(const Ciphertext& x, const char* op) const {
  const KeySwitchSchedule& schedule = schedules_.at(x.level);
  if (x.size() != 2 || x.parts[0].first_row() != schedule.extended_rows.first ||
      x.parts[0].row_count() != schedule.extended_rows.count ||
      x.parts[1].row_count() != schedule.extended_rows.count) {
    throw InvalidArgument(std::string(op) + ": not a 2-part extended sum over the extended rows of level " +
                          std::to_string(x.level) + " (preset " + engine_.preset().name + ")");
  }
}

// The rotation of an extended sum e = (e0, e1) ~ P ct, added as
// (sigma(e0) + IP_b, IP_a) with IP the key switch of sigma applied to
// ModDown(e1): sigma(e0) + sigma(e1) s ~ sigma(P ct) needs no ModDown of e0,
// since the final one divides P out of the whole sum.
void Evaluator::accumulate_extended_rotation(const Ciphertext& extended, int step, Ciphertext& sum) const {
  const char* op = "accumulate_extended_rotation";
  if (&sum == &extended) {
    throw InvalidArgument(std::string(op) + ": the sum must not be the rotated term (as on the GPU)");
  }
  check_extended_sum(extended, op);
  if (!sum.parts.empty()) {
    check_extended_sum(sum, op);
    if (sum.level != extended.level || std::fabs(sum.scale - extended.scale) > 1e-9 * extended.scale) {
      throw InvalidArgument(std::string(op) + ": the sum and the term differ in level or scale (preset " +
                            engine_.preset().name + ")");
    }
  }
  const std::uint64_t element = engine_.galois_elements_for_steps({step}).front();
  // Every key looked up before `sum` changes (a missing one leaves it as it was).
  const KeySwitchKey* key = element == 1 ? nullptr : &engine_.galois_key(element);
  const KeySwitchSchedule& schedule = schedules_.at(extended.level);
  const ntt::RowRange ext = schedule.extended_rows;
  const std::size_t n = extended.parts[0].n();
  if (sum.parts.empty()) {  // zero: adding to it changes no word
    sum = Ciphertext{{RnsPoly(ext.first, ext.count, n, true), RnsPoly(ext.first, ext.count, n, true)}, extended.level,
                     extended.scale};
  }
  const RnsBasis& basis = engine_.rns_basis();
  if (!key) {
    add_inplace(sum.parts[0], extended.parts[0], basis);
    add_inplace(sum.parts[1], extended.parts[1], basis);
    return;
  }
  const std::vector<std::uint32_t>& table = engine_.galois_permutation(element);
  RnsPoly c1, term0(ext.first, ext.count, n, true), term1(ext.first, ext.count, n, true), permuted;
  switcher_.mod_down(schedule, extended.parts[1].data(), c1);
  switcher_.extend(schedule, c1);
  switcher_.inner_product(schedule, *key, &table, term0.data(), term1.data());
  apply_galois_ntt(extended.parts[0], table, permuted);
  add_inplace(term0, permuted, basis);
  add_inplace(sum.parts[0], term0, basis);
  add_inplace(sum.parts[1], term1, basis);
}

Ciphertext Evaluator::mod_down(const Ciphertext& extended_sum) const {
  check_extended_sum(extended_sum, "mod_down");
  const KeySwitchSchedule& schedule = schedules_.at(extended_sum.level);
  Ciphertext out{{RnsPoly(), RnsPoly()}, extended_sum.level, extended_sum.scale};
  switcher_.mod_down(schedule, extended_sum.parts[0].data(), extended_sum.parts[1].data(), out.parts[0],
                     out.parts[1]);
  return out;
}

Ciphertext Evaluator::mod_down_rescale(const Ciphertext& extended_sum) const {
  check_extended_sum(extended_sum, "mod_down_rescale");
  const Preset& preset = engine_.preset();
  const int level = extended_sum.level;
  check_rescalable(preset, level, "mod_down_rescale", "extended sum");
  const RnsScaleDown& schedule = scale_down_schedule(mod_down_rescale_schedules_, level, make_mod_down_rescale);
  const auto first = static_cast<std::size_t>(level);
  const std::size_t n = extended_sum.parts[0].n(), p_rows = preset.p_primes.size();
  Ciphertext out{{}, level + 1, extended_sum.scale / static_cast<double>(preset.q_primes[first])};
  std::vector<std::uint64_t> dropped((p_rows + 1) * n);
  for (const RnsPoly& part : extended_sum.parts) {
    // The dropped rows in the schedule's order: the P rows, then row `level`.
    std::copy_n(part.row(preset.q_primes.size()), p_rows * n, dropped.begin());
    std::copy_n(part.row(first), n, dropped.begin() + p_rows * n);
    RnsPoly scaled(schedule.kept_rows.first, schedule.kept_rows.count, n, true);
    schedule.apply(engine_.ntt_plan(), part.row(first + 1), dropped.data(), scaled.data(), rescale_scratch_);
    out.parts.push_back(std::move(scaled));
  }
  return out;
}

}  // namespace fhe
