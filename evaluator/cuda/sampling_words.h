// The thread bodies of the device sampling kernels (sampling_kernels.cu),
// FHE_HD and CUDA-free so the host can run them too: one thread = one
// group of 4 coefficients = ONE ChaCha20 block, whose four chunks feed the
// samplers of fhe/ckks/random_words.h, exactly as the host Sampler walks a
// stream. Nothing here defines a random word; it only composes those
// definitions, so device and host words are equal by construction.
#pragma once

#include <cstdint>

#include "fhe/arith/modarith.h"
#include "fhe/ckks/random_words.h"
#include "fhe/core/host_device.h"

namespace fhe::cuda {

// Coefficients per sampling thread: the chunks of one ChaCha20 block.
inline constexpr int kCoefficientsPerGroup = kChaChaBlockWords / 4;

enum class SmallDistribution : std::uint8_t { ternary, gaussian };

// Coefficients 4 group .. 4 group + 3 of the small polynomial drawn from
// (seed, stream, row 0): Sampler::ternary / Sampler::gaussian, value for value.
FHE_HD void small_group(std::uint64_t seed, std::uint64_t stream, SmallDistribution distribution,
                        std::uint32_t group, int values[kCoefficientsPerGroup]) {
  std::uint32_t block[kChaChaBlockWords];
  random_block(seed, stream, 0, group, block);
  for (int c = 0; c < kCoefficientsPerGroup; ++c) {
    const RandomChunk chunk = chunk_of_block(block, c);
    values[c] = distribution == SmallDistribution::ternary ? ternary_from_chunk(chunk)
                                                           : gaussian_from_chunk(chunk);
  }
}

// Words 4 group .. 4 group + 3 of preset row `row` (prime q) of a uniform
// polynomial drawn from (seed, stream): Sampler::fill_uniform, word for word.
FHE_HD void uniform_group(std::uint64_t seed, std::uint64_t stream, std::uint32_t row, std::uint32_t group,
                          const Modulus<std::uint64_t>& q, std::uint64_t words[kCoefficientsPerGroup]) {
  std::uint32_t block[kChaChaBlockWords];
  random_block(seed, stream, row, group, block);
  for (int c = 0; c < kCoefficientsPerGroup; ++c) words[c] = uniform_from_chunk(chunk_of_block(block, c), q);
}

}  // namespace fhe::cuda
