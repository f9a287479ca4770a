// A state word of all lanes is one GCC/Clang vector, so each addition, xor
// and rotation of chacha20_rounds is one vector instruction for every lane.
// The function is built twice, for AVX2 and for the baseline, and the
// loader picks the one the CPU runs (the library stays portable). flatten
// inlines chacha20.h's templates into each build; without it both call one
// baseline copy (a 39-row fill_uniform took 36 ms instead of 25).
#include "fhe/ckks/chacha20_lanes.h"

// x86-64 only: other targets build the one baseline function.
#if defined(__x86_64__)
#define FHE_CHACHA_CLONES gnu::target_clones("avx2", "default"),
#else
#define FHE_CHACHA_CLONES
#endif

namespace fhe {

[[FHE_CHACHA_CLONES gnu::flatten]]
void chacha20_blocks(const std::uint32_t key[8], std::uint32_t first_counter, const std::uint32_t nonce[3],
                     std::uint32_t out[kChaChaLanes][kChaChaBlockWords]) {
  using Lanes = std::uint32_t __attribute__((vector_size(4 * kChaChaLanes)));
  Lanes counters{};
  for (int l = 0; l < kChaChaLanes; ++l) counters[l] = first_counter + static_cast<std::uint32_t>(l);
  Lanes block[kChaChaBlockWords];
  chacha20_block_of(key, counters, nonce, block);
  for (int i = 0; i < kChaChaBlockWords; ++i) {
    for (int l = 0; l < kChaChaLanes; ++l) out[l][i] = block[i][l];
  }
}

}  // namespace fhe
