// Bulk host sampling: one ChaCha20 block per four coefficients, the blocks
// of 4 * kChaChaLanes coefficients computed side by side.
#include "fhe/ckks/sampler.h"

#include "fhe/ckks/chacha20_lanes.h"

namespace fhe {

template <typename Sink>
void Sampler::for_each_chunk(std::uint64_t stream, std::uint32_t row, std::size_t n,
                             Sink&& sink) const {
  std::uint32_t key[8], nonce[3];
  random_key_nonce(seed_, stream, row, key, nonce);
  constexpr std::size_t kGroup = 4 * kChaChaLanes;
  std::size_t first = 0;
  std::uint32_t blocks[kChaChaLanes][kChaChaBlockWords];
  for (; first + kGroup <= n; first += kGroup) {
    chacha20_blocks(key, static_cast<std::uint32_t>(first >> 2), nonce, blocks);
    for (int b = 0; b < kChaChaLanes; ++b) {
      for (int c = 0; c < 4; ++c) sink(first + 4 * static_cast<std::size_t>(b) + c, chunk_of_block(blocks[b], c));
    }
  }
  for (; first < n; first += 4) {  // a tail shorter than a group
    chacha20_block(key, static_cast<std::uint32_t>(first >> 2), nonce, blocks[0]);
    for (std::size_t c = 0; c < 4 && first + c < n; ++c) {
      sink(first + c, chunk_of_block(blocks[0], static_cast<int>(c)));
    }
  }
}

void Sampler::fill_uniform(RnsPoly& poly, std::uint64_t stream, const RnsBasis& basis) const {
  for (std::size_t id = poly.first_row(); id < poly.end_row(); ++id) {
    const Modulus<std::uint64_t>& q = basis.modulus(id);
    std::uint64_t* words = poly.row(id);
    for_each_chunk(stream, static_cast<std::uint32_t>(id), poly.n(),
                   [&](std::size_t k, RandomChunk chunk) { words[k] = uniform_from_chunk(chunk, q); });
  }
}

std::vector<std::int8_t> Sampler::ternary(std::uint64_t stream, std::size_t n) const {
  std::vector<std::int8_t> out(n);
  for_each_chunk(stream, 0, n, [&](std::size_t k, RandomChunk chunk) {
    out[k] = static_cast<std::int8_t>(ternary_from_chunk(chunk));
  });
  return out;
}

std::vector<std::int8_t> Sampler::gaussian(std::uint64_t stream, std::size_t n) const {
  std::vector<std::int8_t> out(n);
  for_each_chunk(stream, 0, n, [&](std::size_t k, RandomChunk chunk) {
    out[k] = static_cast<std::int8_t>(gaussian_from_chunk(chunk));
  });
  return out;
}

}  // namespace fhe
