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
  // Relinearization: switches from s^2 to s.
  KeySwitchKey relinearization_key(const SecretKey& secret) const;
  // Switches from s(X^g) to s.
  KeySwitchKey galois_key(const SecretKey& secret, std::uint64_t galois_element) const;

  // The key from `target` (NTT form, covering the Q rows) to s; `instance`
  // names the key's random streams (0 for relinearization, else g).
  KeySwitchKey switch_key(const SecretKey& secret, const RnsPoly& target,
                          std::uint64_t instance) const;

 private:
  const Preset& preset_;
  const RnsBasis& basis_;
  const ntt::NttPlan& plan_;
  const Sampler& sampler_;
};

}  // namespace fhe
