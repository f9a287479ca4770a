// Host bulk sampling over the counter-based words of random_words.h: each
// ChaCha20 block is computed once and its four chunks feed four consecutive
// coefficient indices. The words equal random_chunk() index by index.
#pragma once

#include <cstdint>
#include <vector>

#include "fhe/ckks/random_words.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/rns_poly.h"

namespace fhe {

class Sampler {
 public:
  explicit Sampler(std::uint64_t seed) : seed_(seed) {}

  std::uint64_t seed() const { return seed_; }

  // Every row r of `poly` gets uniform words mod q_r from (stream, row id r).
  // The words are used as they come (NTT or coefficient form, caller's choice).
  void fill_uniform(RnsPoly& poly, std::uint64_t stream, const RnsBasis& basis) const;

  // N ternary coefficients in {-1, 0, 1} from (stream, row 0).
  std::vector<std::int8_t> ternary(std::uint64_t stream, std::size_t n) const;

  // N discrete Gaussian coefficients (sigma 3.19, |x| <= 19) from (stream, row 0).
  std::vector<std::int8_t> gaussian(std::uint64_t stream, std::size_t n) const;

 private:
  // Calls chunk_sink(index, chunk) for indices 0..n-1 of (stream, row).
  template <typename Sink>
  void for_each_chunk(std::uint64_t stream, std::uint32_t row, std::size_t n, Sink&& sink) const;

  std::uint64_t seed_;
};

}  // namespace fhe
