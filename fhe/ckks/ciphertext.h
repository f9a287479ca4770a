// CKKS plaintexts and ciphertexts. Both live in NTT form over the active Q
// rows of their level (preset row ids level..L) and carry their scale.
#pragma once

#include <vector>

#include "fhe/ckks/rns_poly.h"

namespace fhe {

struct Plaintext {
  RnsPoly poly;       // NTT form, rows level..L
  int level = 0;      // primes dropped so far (0 = fresh)
  double scale = 1;   // the encoding factor Delta the message was multiplied by

  bool operator==(const Plaintext&) const = default;
};

// parts[0] + parts[1] * s (+ parts[2] * s^2 after an unrelinearized multiply)
// decrypts to the plaintext.
struct Ciphertext {
  std::vector<RnsPoly> parts;
  int level = 0;
  double scale = 1;

  std::size_t size() const { return parts.size(); }
  bool operator==(const Ciphertext&) const = default;
};

}  // namespace fhe
