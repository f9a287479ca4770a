// The ChaCha20 block function (RFC 8439, section 2.3), written for both the
// host and CUDA device code. It is the only source of randomness in the
// CKKS layer: every sampled word is a pure function of the block inputs, so
// a CUDA kernel that calls this function reproduces the CPU's words exactly.
#pragma once

#include <cstdint>

#include "fhe/core/host_device.h"

namespace fhe {

inline constexpr int kChaChaBlockWords = 16;

FHE_HD std::uint32_t chacha_rotl(std::uint32_t x, int bits) {
  return (x << bits) | (x >> (32 - bits));
}

FHE_HD void chacha_quarter_round(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c,
                                 std::uint32_t& d) {
  a += b; d ^= a; d = chacha_rotl(d, 16);
  c += d; b ^= c; b = chacha_rotl(b, 12);
  a += b; d ^= a; d = chacha_rotl(d, 8);
  c += d; b ^= c; b = chacha_rotl(b, 7);
}

// One 64-byte block as 16 little-endian words: the state after 20 rounds
// (10 column/diagonal double rounds) added to the input state.
FHE_HD void chacha20_block(const std::uint32_t key[8], std::uint32_t counter,
                           const std::uint32_t nonce[3], std::uint32_t out[kChaChaBlockWords]) {
  std::uint32_t input[kChaChaBlockWords] = {
      0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,  // "expand 32-byte k"
      key[0],      key[1],      key[2],      key[3],
      key[4],      key[5],      key[6],      key[7],
      counter,     nonce[0],    nonce[1],    nonce[2]};
  std::uint32_t x[kChaChaBlockWords];
  for (int i = 0; i < kChaChaBlockWords; ++i) x[i] = input[i];
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
  for (int i = 0; i < kChaChaBlockWords; ++i) out[i] = x[i] + input[i];
}

}  // namespace fhe
