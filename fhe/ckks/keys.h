// CKKS keys and the hybrid key-switching digit layout of SPEC section 3.
//
// Digits: digit j < dnum-1 holds the scale primes [j*|P|, min((j+1)*|P|, L)),
// the last digit holds the base prime (id L) alone. A key-switching key from
// s' to s has one component per digit over all QP rows, in NTT form:
//   b_j = -a_j * s + e_j + g_j * s',  g_j = P mod q_i on the rows of digit j
// and 0 elsewhere (every other Q row and all P rows) - the CRT idempotent of
// digit j times P. Dropping rows keeps the relation, so one key serves every
// level.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "fhe/ckks/rns_poly.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

// The Q row ids of every digit, in digit order (size dnum).
std::vector<ntt::RowRange> key_switch_digits(const Preset& preset);

struct SecretKey {
  RnsPoly ntt;             // ternary s in NTT form over all QP rows
  std::uint64_t seed = 0;  // the engine seed it was sampled from
  bool operator==(const SecretKey&) const = default;
};

// (b, a) = (-a*s + e, a) over the Q rows, NTT form.
struct PublicKey {
  RnsPoly b, a;
  bool operator==(const PublicKey&) const = default;
};

struct KeySwitchComponent {
  RnsPoly b, a;  // all QP rows, NTT form
  bool operator==(const KeySwitchComponent&) const = default;
};

// Switches a ciphertext part from s' to s; one component per digit.
struct KeySwitchKey {
  std::vector<KeySwitchComponent> components;
  bool operator==(const KeySwitchKey&) const = default;
};

// Galois keys by Galois element g (s' = s(X^g)).
using GaloisKeys = std::map<std::uint64_t, KeySwitchKey>;

}  // namespace fhe
