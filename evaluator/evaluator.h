// fhe::Evaluator: homomorphic operations over a CkksEngine on the CPU.
//
//   fhe::Evaluator evaluator(engine);
//   auto sum     = evaluator.add(a, b);                     // also sub, negate, *_plain
//   auto product = evaluator.multiply_relinearize(a, b);    // scale a.scale * b.scale
//   auto scaled  = evaluator.rescale(product);              // drops prime id `level`
//   auto shifted = evaluator.rotate(scaled, 3);             // slot j <- slot j + 3
//   auto many    = evaluator.rotate_many_by_steps(scaled, {1, 2, 4, 8});  // hoisted
//
// Ciphertexts stay in NTT form over rows level..L. Binary operations need
// equal levels (drop_level the fresher one) and, for add/sub, equal scales
// (relative difference <= 1e-9); violations throw InvalidArgument naming the
// operation, preset, levels and scales. Key switching is hybrid with the
// level's KeySwitchSchedule; every transform goes through the engine's plan.
//
// An Evaluator holds scratch buffers that grow once and are reused, so it is
// not thread-safe: use one Evaluator per thread (they may share the engine,
// which must outlive them).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "evaluator/key_switch_schedule.h"
#include "evaluator/key_switcher.h"
#include "evaluator/rns_scale_down.h"
#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/engine.h"

namespace fhe {

class Evaluator {
 public:
  explicit Evaluator(const CkksEngine& engine);

  const CkksEngine& engine() const { return engine_; }

  Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  Ciphertext negate(const Ciphertext& a) const;
  // The plaintext must be at the ciphertext's level (and scale, for add/sub).
  Ciphertext add_plain(const Ciphertext& a, const Plaintext& b) const;
  Ciphertext sub_plain(const Ciphertext& a, const Plaintext& b) const;
  // Scale becomes a.scale * b.scale.
  Ciphertext multiply_plain(const Ciphertext& a, const Plaintext& b) const;

  // Tensor product of two 2-part ciphertexts: 3 parts, scale a.scale * b.scale.
  Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  // 3 parts -> 2 parts with the relinearization key.
  Ciphertext relinearize(const Ciphertext& a) const;
  // multiply + relinearize (the ckks-primitive suite's multiply_relinearize).
  Ciphertext multiply_relinearize(const Ciphertext& a, const Ciphertext& b) const;

  // Divides by the leading active prime q_level with rounding and drops it:
  // level + 1, scale / q_level. Throws at the last level (only the base prime).
  Ciphertext rescale(const Ciphertext& a) const;
  // Drops rows down to `target_level` (>= a.level) without changing the scale.
  Ciphertext drop_level(const Ciphertext& a, int target_level) const;

  // Left rotation by `step` slots (negative = right) with the Galois key of
  // 5^step mod 2N; throws InvalidArgument when that key was not generated.
  Ciphertext rotate(const Ciphertext& a, int step) const;
  // Complex conjugation of every slot (Galois element 2N - 1).
  Ciphertext conjugate(const Ciphertext& a) const;
  // Hoisted rotations: decompose + ModUp + NTT once, then per step the
  // Galois permutation of the extended digits in the NTT domain, the key
  // inner product and ModDown. Results in the order of `steps`; each equals
  // rotate(a, step) word for word. All keys are checked before any work.
  std::vector<Ciphertext> rotate_many_by_steps(const Ciphertext& a, const std::vector<int>& steps) const;

  // ---- Linear transforms with one ModDown (double hoisting) ----
  // An extended sum is a 2-part Ciphertext over the extended rows of its
  // level (rows level..L and the P rows) that is P times the ciphertext it
  // stands for: the form of a rotation before its ModDown. Summing plaintext
  // x rotation terms in that form lets a whole linear transform pay ONE
  // ModDown instead of one per rotation:
  //   mod_down(sum) ~ sum_k plains[k] (.) rotate(a, steps[k])   (step 0: a)
  // accumulate_rotations decomposes `a` once (hoisted) and adds the terms
  // to `sum` (empty parts: it starts there); every plaintext comes from
  // CkksEngine::encode_extended at a.level (null: times 1, scale 1), and
  // sum.scale = a.scale x its scale. Extended sums of equal level and scale
  // add with add() and multiply by extended plaintexts with
  // multiply_plain(). The words do not depend on how the steps are split
  // across calls or sums, because everything before mod_down is exact
  // modular arithmetic.
  void accumulate_rotations(const Ciphertext& a, const std::vector<int>& steps,
                            const std::vector<const Plaintext*>& extended_plains, Ciphertext& sum) const;
  // The terms themselves, one extended ciphertext per step (decomposed
  // once): BSGS keeps its baby steps so and reuses them in every inner sum.
  std::vector<Ciphertext> rotate_many_extended(const Ciphertext& a, const std::vector<int>& steps) const;
  // sum += the rotation by `step` of an extended sum (a BSGS giant step on
  // its inner sum): only its c1 part is brought down to Q (ModDown) and key
  // switched; its c0 part is permuted over QP as it is, for the final
  // mod_down divides P out of the whole sum. Step 0 adds `extended` itself.
  // `sum`: empty (it starts there) or an extended sum of the same level and
  // scale, not `extended` itself.
  void accumulate_extended_rotation(const Ciphertext& extended, int step, Ciphertext& sum) const;
  // Divides an extended sum by P with rounding: a 2-part ciphertext over
  // rows level..L with the sum's scale.
  Ciphertext mod_down(const Ciphertext& extended_sum) const;
  // rescale(mod_down(extended_sum)) in one division by P q_level: one
  // conversion and one forward transform instead of two of each. The words
  // differ from the two steps': each coefficient is within (P rows + 1) / 2
  // of the exact quotient instead of within 1, both far below the noise.
  // A 2-part ciphertext at level + 1 with the scale divided by q_level;
  // throws InvalidArgument at the last level.
  Ciphertext mod_down_rescale(const Ciphertext& extended_sum) const;

  // The schedule of `level` (built once, cached).
  const KeySwitchSchedule& key_switch_schedule(int level) const { return schedules_.at(level); }
  // Key switching of one NTT-form polynomial over rows level..L (level taken
  // from its first row): returns (c0, c1) with c0 + c1 s ~ input * s'.
  std::pair<RnsPoly, RnsPoly> key_switch(const RnsPoly& input, const KeySwitchKey& key) const;

 private:
  using PlainCombine = void (*)(RnsPoly&, const RnsPoly&, const RnsBasis&);
  Ciphertext combine_plain_into_part0(const Ciphertext& a, const Plaintext& b, const char* op,
                                      PlainCombine combine) const;
  std::vector<Ciphertext> apply_galois(const Ciphertext& a,
                                       const std::vector<std::uint64_t>& galois_elements) const;
  using ScaleDownSlots = std::vector<std::unique_ptr<RnsScaleDown>>;  // by level, built on first use
  const RnsScaleDown& scale_down_schedule(ScaleDownSlots& slots, int level,
                                          RnsScaleDown (*make)(const Preset&, int)) const;
  void check_extended_sum(const Ciphertext& x, const char* op) const;
  struct RotationKey {
    const KeySwitchKey* key;                     // null for step 0
    const std::vector<std::uint32_t>* table;
  };
  std::vector<RotationKey> prepare_rotations(const Ciphertext& a, const std::vector<std::uint64_t>& galois_elements,
                                             const char* op) const;
  void rotation_term(const Ciphertext& a, const RotationKey& key, RnsPoly& term0, RnsPoly& term1,
                     RnsPoly& scratch) const;

  const CkksEngine& engine_;
  KeySwitchScheduleCache schedules_;
  mutable ScaleDownSlots rescale_schedules_, mod_down_rescale_schedules_;
  mutable KeySwitcher switcher_;
  mutable std::vector<std::uint64_t> rescale_scratch_;
};

}  // namespace fhe
