// Counter-based definition of every random word the CKKS layer samples.
//
// A word is a pure function of (seed, stream id, row id, coefficient index):
//   key     = the 64-bit seed in ChaCha20 key words 0-1 (little-endian), words 2-7 zero
//   nonce   = (stream id low 32 bits, stream id high 32 bits, row id)
//   counter = index / 4
//   chunk   = the 128 bits in block words 4*(index % 4) .. 4*(index % 4) + 3,
//             lo = w0 | w1 << 32, hi = w2 | w3 << 32
// and each sampler below maps one chunk to one value without floating point.
// Host and CUDA code call the same functions, hence identical ciphertexts.
#pragma once

#include <cstdint>

#include "fhe/arith/modarith.h"
#include "fhe/ckks/chacha20.h"
#include "fhe/core/host_device.h"

namespace fhe {

// What a stream is for; the top byte of the stream id (see docs/ckks.md).
enum class RandomPurpose : std::uint8_t {
  secret_key = 1,     // ternary s
  public_key_a = 2,   // uniform a of the public key, per Q row
  public_key_e = 3,   // Gaussian error of the public key
  switch_key_a = 4,   // uniform a_j of key-switching key digit j, per QP row
  switch_key_e = 5,   // Gaussian e_j of key-switching key digit j
  encrypt_u = 6,      // ternary u of a public-key encryption
  encrypt_e = 7,      // Gaussian e0 (component 0) and e1 (component 1)
  symmetric_a = 8,    // uniform a of a secret-key encryption, per Q row
  symmetric_e = 9,    // Gaussian e of a secret-key encryption
};

// purpose (8 bits) | instance (40 bits) | component (16 bits). The instance
// is the Galois element of a key (0 for relinearization) or the engine's
// encryption counter; the component is the key digit or error index.
FHE_HD std::uint64_t make_stream_id(RandomPurpose purpose, std::uint64_t instance,
                                    std::uint32_t component) {
  return (static_cast<std::uint64_t>(purpose) << 56) |
         ((instance & ((std::uint64_t{1} << 40) - 1)) << 16) | (component & 0xffffu);
}

struct RandomChunk {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
};

// The ChaCha20 key and nonce of a stream row.
FHE_HD void random_key_nonce(std::uint64_t seed, std::uint64_t stream, std::uint32_t row, std::uint32_t key[8],
                             std::uint32_t nonce[3]) {
  key[0] = static_cast<std::uint32_t>(seed);
  key[1] = static_cast<std::uint32_t>(seed >> 32);
  for (int i = 2; i < 8; ++i) key[i] = 0;
  nonce[0] = static_cast<std::uint32_t>(stream);
  nonce[1] = static_cast<std::uint32_t>(stream >> 32);
  nonce[2] = row;
}

// The ChaCha20 block holding chunks 4*counter .. 4*counter+3 of a stream row.
FHE_HD void random_block(std::uint64_t seed, std::uint64_t stream, std::uint32_t row,
                         std::uint32_t counter, std::uint32_t block[kChaChaBlockWords]) {
  std::uint32_t key[8], nonce[3];
  random_key_nonce(seed, stream, row, key, nonce);
  chacha20_block(key, counter, nonce, block);
}

FHE_HD RandomChunk chunk_of_block(const std::uint32_t block[kChaChaBlockWords], int chunk) {
  const std::uint32_t* w = block + 4 * chunk;
  return {w[0] | (static_cast<std::uint64_t>(w[1]) << 32),
          w[2] | (static_cast<std::uint64_t>(w[3]) << 32)};
}

// The chunk of one coefficient index (one block per call; bulk samplers
// compute each block once and use its four chunks).
FHE_HD RandomChunk random_chunk(std::uint64_t seed, std::uint64_t stream, std::uint32_t row,
                                std::uint64_t index) {
  std::uint32_t block[kChaChaBlockWords];
  random_block(seed, stream, row, static_cast<std::uint32_t>(index >> 2), block);
  return chunk_of_block(block, static_cast<int>(index & 3));
}

// Uniform in [0, q): the 128-bit chunk reduced mod q (bias below q / 2^128).
FHE_HD std::uint64_t uniform_from_chunk(RandomChunk chunk, const Modulus<std::uint64_t>& q) {
  return reduce_wide<std::uint64_t>(chunk.hi, chunk.lo, q);
}

// Ternary in {-1, 0, 1}: floor(3 * hi / 2^64) - 1 (each value within 2^-63 of 1/3).
FHE_HD int ternary_from_chunk(RandomChunk chunk) {
  return static_cast<int>(mul_hi(chunk.hi, std::uint64_t{3})) - 1;
}

// Largest magnitude of the discrete Gaussian: 6 sigma rounded down (sigma 3.19).
inline constexpr int kGaussianMaxMagnitude = 19;

// Discrete Gaussian, sigma 3.19, truncated to |x| <= 19, by an integer
// cumulative distribution table: |x| = #{k : lo >= T[k]} with
// T[k] = floor(2^64 * P(|x| <= k)), and the sign from the top bit of hi.
// P(|x| = 0) = rho(0)/S, P(|x| = k) = 2 rho(k)/S, rho(k) = exp(-k^2 / (2 sigma^2)),
// S = sum of rho over [-19, 19]; computed with 300-bit precision (docs/ckks.md).
FHE_HD int gaussian_from_chunk(RandomChunk chunk) {
  constexpr std::uint64_t kCumulative[kGaussianMaxMagnitude] = {
      0x2003f343d8f74a20ULL, 0x5cf9e7df5e1cb374ULL, 0x9194fd0dbd16635aULL,
      0xbabaa2f1bfe45553ULL, 0xd7e6ab33b4234017ULL, 0xeaa5b9244ea23a05ULL,
      0xf591040e384e84d1ULL, 0xfb54cb302e62a284ULL, 0xfe17022d0b06ad0fULL,
      0xff4953fc5557b681ULL, 0xffc1c2128f9d463eULL, 0xffecac829c77aaafULL,
      0xfffa8924cdc2ff77ULL, 0xfffe9813a4348577ULL, 0xffffabc6b79daa6aULL,
      0xffffee1727926b15ULL, 0xfffffc8c5391382cULL, 0xffffff67b9946e35ULL,
      0xffffffeabb196c32ULL};
  int magnitude = 0;
  // Every entry is compared (no early exit), the same work for every draw.
  for (int k = 0; k < kGaussianMaxMagnitude; ++k) magnitude += chunk.lo >= kCumulative[k] ? 1 : 0;
  return (chunk.hi >> 63) ? -magnitude : magnitude;
}

// The word of a small signed coefficient c (|c| < q) in the row of prime q:
// c or q - |c|. How sampled ternary and Gaussian values enter every row.
FHE_HD std::uint64_t small_coefficient_word(int c, std::uint64_t q) {
  return c >= 0 ? static_cast<std::uint64_t>(c) : q - static_cast<std::uint64_t>(-c);
}

}  // namespace fhe
