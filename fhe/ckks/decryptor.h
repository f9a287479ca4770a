// Decryption: m = c0 + c1 s (+ c2 s^2) over the ciphertext's rows.
#pragma once

#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/keys.h"
#include "fhe/ckks/rns_basis.h"

namespace fhe {

// NTT-form plaintext at the ciphertext's level and scale; throws
// InvalidArgument for a ciphertext of other than 2 or 3 parts.
Plaintext decrypt(const Ciphertext& ciphertext, const SecretKey& key, const RnsBasis& basis);

}  // namespace fhe
