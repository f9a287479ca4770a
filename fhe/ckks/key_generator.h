// Key generation from the engine's seeded sampler (never on a timed path).
// Stream ids per key are listed in random_words.h and docs/ckks.md, so the
// same seed gives the same key words on every device and backend.
#pragma once

#include <cstdint>
#include <vector>

#include "fhe/ckks/keys.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/sampler.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

class KeyGenerator {
 public:
  // All references must outlive the generator; `plan` covers all QP rows.
  KeyGenerator(const Preset& preset, const RnsBasis& basis, const ntt::NttPlan& plan,
               const Sampler& sampler);

  SecretKey secret_key() const;
  PublicKey public_key(const SecretKey& secret) const;

  // Digit `digit` (of digit_count()) of the switch key from s' to s. The
  // instance names s' and the key's random streams: 0 for relinearization
  // (s' = s^2), else a Galois element g (s' = s(X^g)). Digits are
  // independent and their randomness counter-based, so they may be built
  // in any order, on any thread, with the same words (CkksEngine builds
  // every key's digits in parallel).
  std::size_t digit_count() const;
  KeySwitchComponent switch_key_component(const SecretKey& secret, std::uint64_t instance,
                                          std::size_t digit) const;

 private:
  const Preset& preset_;
  const RnsBasis& basis_;
  const ntt::NttPlan& plan_;
  const Sampler& sampler_;
};

}  // namespace fhe
