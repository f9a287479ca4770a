// The ChaCha20 block function (RFC 8439, section 2.3), written for both the
// host and CUDA device code. It is the only source of randomness in the
// CKKS layer: every sampled word is a pure function of the block inputs, so
// a CUDA kernel that calls this function reproduces the CPU's words exactly.
#pragma once

#include <cstdint>

#include "fhe/core/host_device.h"

namespace fhe {

inline constexpr int kChaChaBlockWords = 16;

// Word: std::uint32_t, or a GCC/Clang vector of them (chacha20_lanes.cpp:
// one block per lane). In place, so no vector is passed by value.
template <int Bits, typename Word>
FHE_HD void chacha_rotate_left(Word& x) {
  x = (x << Bits) | (x >> (32 - Bits));
}

template <typename Word>
FHE_HD void chacha_quarter_round(Word& a, Word& b, Word& c, Word& d) {
  a += b; d ^= a; chacha_rotate_left<16>(d);
  c += d; b ^= c; chacha_rotate_left<12>(b);
  a += b; d ^= a; chacha_rotate_left<8>(d);
  c += d; b ^= c; chacha_rotate_left<7>(b);
}

// The 20 rounds (10 column / diagonal double rounds) on a state.
template <typename Word>
FHE_HD void chacha20_rounds(Word x[kChaChaBlockWords]) {
  for (int round = 0; round < 10; ++round) {
    chacha_quarter_round(x[0], x[4], x[8], x[12]);
    chacha_quarter_round(x[1], x[5], x[9], x[13]);
    chacha_quarter_round(x[2], x[6], x[10], x[14]);
    chacha_quarter_round(x[3], x[7], x[11], x[15]);
    chacha_quarter_round(x[0], x[5], x[10], x[15]);
    chacha_quarter_round(x[1], x[6], x[11], x[12]);
    chacha_quarter_round(x[2], x[7], x[8], x[13]);
    chacha_quarter_round(x[3], x[4], x[9], x[14]);
  }
}

// The block of an input state: the state after the 20 rounds added to
// the input, 16 little-endian words. The input is the constants
// "expand 32-byte k", the key, the counter and the nonce.
template <typename Word>
FHE_HD void chacha20_block_of(const std::uint32_t key[8], const Word& counter, const std::uint32_t nonce[3],
                              Word out[kChaChaBlockWords]) {
  const std::uint32_t words[kChaChaBlockWords] = {
      0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
      key[0],      key[1],      key[2],      key[3],
      key[4],      key[5],      key[6],      key[7],
      0,           nonce[0],    nonce[1],    nonce[2]};
  Word input[kChaChaBlockWords];
  for (int i = 0; i < kChaChaBlockWords; ++i) input[i] = Word{} + words[i];  // every lane of a vector
  input[12] = counter;
  Word x[kChaChaBlockWords];
  for (int i = 0; i < kChaChaBlockWords; ++i) x[i] = input[i];
  chacha20_rounds(x);
  for (int i = 0; i < kChaChaBlockWords; ++i) out[i] = x[i] + input[i];
}

// One block (RFC 8439, section 2.3): what every sampler's words come from.
FHE_HD void chacha20_block(const std::uint32_t key[8], std::uint32_t counter,
                           const std::uint32_t nonce[3], std::uint32_t out[kChaChaBlockWords]) {
  chacha20_block_of(key, counter, nonce, out);
}

}  // namespace fhe
