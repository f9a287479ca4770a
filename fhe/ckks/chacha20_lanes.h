// ChaCha20 blocks of consecutive counters computed side by side, for the
// host samplers: the words of chacha20_block, lane for lane
// (tests/fhe/ckks_random_test.cpp).
#pragma once

#include <cstdint>

#include "fhe/ckks/chacha20.h"

namespace fhe {

inline constexpr int kChaChaLanes = 8;

// out[lane] = chacha20_block(key, first_counter + lane, nonce).
void chacha20_blocks(const std::uint32_t key[8], std::uint32_t first_counter, const std::uint32_t nonce[3],
                     std::uint32_t out[kChaChaLanes][kChaChaBlockWords]);

}  // namespace fhe
