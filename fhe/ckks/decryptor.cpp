// Decryption by Horner's rule in s.
#include "fhe/ckks/decryptor.h"

#include <string>

#include "fhe/ckks/poly_arith.h"
#include "fhe/core/error.h"

namespace fhe {

Plaintext decrypt(const Ciphertext& ciphertext, const SecretKey& key, const RnsBasis& basis) {
  if (ciphertext.size() < 2 || ciphertext.size() > 3) {
    throw InvalidArgument("decrypt: a ciphertext of " + std::to_string(ciphertext.size()) +
                          " parts (expected 2 or 3)");
  }
  Plaintext m{ciphertext.parts[0], ciphertext.level, ciphertext.scale};
  // Horner in s: c0 + s (c1 + s c2).
  RnsPoly acc = ciphertext.parts.back();
  for (std::size_t part = ciphertext.size() - 1; part-- > 1;) {
    multiply_inplace(acc, key.ntt, basis);
    add_inplace(acc, ciphertext.parts[part], basis);
  }
  multiply_inplace(acc, key.ntt, basis);
  add_inplace(m.poly, acc, basis);
  return m;
}

}  // namespace fhe
