// Public-key and secret-key encryption at any level. The randomness of
// encryption number `index` comes from streams (encrypt_u | encrypt_e |
// symmetric_a | symmetric_e, index, component), so replaying an engine with
// the same seed replays its ciphertexts word for word.
#pragma once

#include <cstdint>

#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/keys.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/sampler.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

class Encryptor {
 public:
  // All references must outlive the encryptor; `plan` covers all QP rows.
  Encryptor(const Preset& preset, const RnsBasis& basis, const ntt::NttPlan& plan,
            const Sampler& sampler);

  // (b u + e0 + m, a u + e1) over the plaintext's rows.
  Ciphertext encrypt(const Plaintext& plaintext, const PublicKey& key, std::uint64_t index) const;
  // (-a s + e + m, a) over the plaintext's rows.
  Ciphertext encrypt_symmetric(const Plaintext& plaintext, const SecretKey& key,
                               std::uint64_t index) const;

 private:
  const Preset& preset_;
  const RnsBasis& basis_;
  const ntt::NttPlan& plan_;
  const Sampler& sampler_;
};

}  // namespace fhe
