// The counter-based randomness of the CKKS layer: ChaCha20 against RFC 8439,
// golden stream words (the CUDA sampler must reproduce them), bulk sampler
// equal to the per-index definition, and the samplers' distributions.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "fhe/ckks/chacha20_lanes.h"
#include "fhe/ckks/random_words.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/sampler.h"
#include "fhe/params/preset.h"

namespace fhe {
namespace {

TEST(ChaCha20, MatchesRfc8439BlockTestVector) {
  // RFC 8439 section 2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1.
  std::uint32_t key[8];
  for (std::uint32_t i = 0; i < 8; ++i) {
    key[i] = (4 * i) | ((4 * i + 1) << 8) | ((4 * i + 2) << 16) | ((4 * i + 3) << 24);
  }
  const std::uint32_t nonce[3] = {0x09000000, 0x4a000000, 0x00000000};
  std::uint32_t out[16];
  chacha20_block(key, 1, nonce, out);
  const std::uint32_t expected[16] = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
                                      0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
                                      0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                                      0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], expected[i]) << "word " << i;
}

// The side-by-side blocks (the host samplers' path) against the scalar
// block, lane by lane, including a counter that wraps at 2^32.
TEST(ChaCha20, LanesGiveTheScalarBlocks) {
  const std::uint32_t key[8] = {0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c,
                                0x13121110, 0x17161514, 0x1b1a1918, 0x1f1e1d1c};
  const std::uint32_t nonce[3] = {0x09000000, 0x4a000000, 0x00000000};
  for (const std::uint32_t first : {0u, 1u, 0xfffffffcu}) {
    std::uint32_t lanes[kChaChaLanes][kChaChaBlockWords];
    chacha20_blocks(key, first, nonce, lanes);
    for (int l = 0; l < kChaChaLanes; ++l) {
      std::uint32_t block[kChaChaBlockWords];
      chacha20_block(key, first + static_cast<std::uint32_t>(l), nonce, block);
      for (int i = 0; i < kChaChaBlockWords; ++i) {
        EXPECT_EQ(lanes[l][i], block[i]) << "first counter " << first << ", lane " << l << ", word " << i;
      }
    }
  }
  // Lane 1 from counter 0 is RFC 8439's block (counter 1), word 0.
  std::uint32_t lanes[kChaChaLanes][kChaChaBlockWords];
  chacha20_blocks(key, 0, nonce, lanes);
  EXPECT_EQ(lanes[1][0], 0xe4e7f110u);
}

TEST(RandomWords, StreamIdLayout) {
  EXPECT_EQ(make_stream_id(RandomPurpose::secret_key, 0, 0), std::uint64_t{1} << 56);
  EXPECT_EQ(make_stream_id(RandomPurpose::switch_key_a, 5, 3),
            (std::uint64_t{4} << 56) | (std::uint64_t{5} << 16) | 3);
}

TEST(RandomWords, GoldenChunks) {
  // Seed 1, secret-key stream, row 0; index 0 was cross-checked with
  // `openssl enc -chacha20` (key 01 00.., iv 00000000 00000000 00000001 00000000).
  const std::uint64_t stream = make_stream_id(RandomPurpose::secret_key, 0, 0);
  const std::map<std::uint64_t, RandomChunk> golden = {
      {0, {0x0843b2dd824b995bULL, 0xaf5d1a1304610e95ULL}},
      {1, {0xfba5866e7085f358ULL, 0x7d19fb8427fcc246ULL}},
      {5, {0x21fdc314834bdf37ULL, 0x388c0fdac7ce9ce2ULL}},
      {4095, {0x0d4270f97f28e083ULL, 0xd1040d4c23bcc49bULL}}};
  for (const auto& [index, chunk] : golden) {
    const RandomChunk got = random_chunk(1, stream, 0, index);
    EXPECT_EQ(got.lo, chunk.lo) << "index " << index;
    EXPECT_EQ(got.hi, chunk.hi) << "index " << index;
  }
  const RandomChunk other = random_chunk(0x0123456789abcdefULL,
                                         make_stream_id(RandomPurpose::switch_key_a, 5, 3), 17, 1234567);
  EXPECT_EQ(other.lo, 0x34ebd433e83d770bULL);
  EXPECT_EQ(other.hi, 0x74a0897d88b1d979ULL);
}

TEST(RandomWords, InputsSelectIndependentWords) {
  const std::uint64_t stream = make_stream_id(RandomPurpose::encrypt_u, 3, 0);
  const RandomChunk base = random_chunk(9, stream, 2, 10);
  EXPECT_NE(random_chunk(10, stream, 2, 10).lo, base.lo);       // seed
  EXPECT_NE(random_chunk(9, stream + 1, 2, 10).lo, base.lo);    // stream
  EXPECT_NE(random_chunk(9, stream, 3, 10).lo, base.lo);        // row
  EXPECT_NE(random_chunk(9, stream, 2, 11).lo, base.lo);        // index
  EXPECT_EQ(random_chunk(9, stream, 2, 10).hi, base.hi);        // pure function
}

TEST(Sampler, BulkWordsEqualThePerIndexDefinition) {
  const Preset& preset = preset_by_name("test-slots512-scale40-levels3-int64");
  const RnsBasis basis(preset);
  const Sampler sampler(77);
  const std::uint64_t stream = make_stream_id(RandomPurpose::public_key_a, 0, 0);
  RnsPoly poly(1, 3, preset.n(), true);
  sampler.fill_uniform(poly, stream, basis);
  for (std::size_t id = 1; id < 4; ++id) {
    for (std::size_t k : {0, 1, 2, 3, 4, 511, 1023}) {
      const RandomChunk chunk = random_chunk(77, stream, static_cast<std::uint32_t>(id), k);
      const unsigned __int128 wide = (static_cast<unsigned __int128>(chunk.hi) << 64) | chunk.lo;
      EXPECT_EQ(poly.row(id)[k], static_cast<std::uint64_t>(wide % basis.prime(id)));
    }
  }
  const auto ternary = sampler.ternary(stream, 1000);
  const auto gaussian = sampler.gaussian(stream, 1000);
  for (std::size_t k : {0, 3, 998, 999}) {
    EXPECT_EQ(ternary[k], ternary_from_chunk(random_chunk(77, stream, 0, k)));
    EXPECT_EQ(gaussian[k], gaussian_from_chunk(random_chunk(77, stream, 0, k)));
  }
}

TEST(Sampler, UniformWordsAreReducedAndSpread) {
  const Preset& preset = preset_by_name("test-slots2048-scale40-levels6-int64");
  const RnsBasis basis(preset);
  RnsPoly poly(0, preset.qp_rows(), preset.n(), true);
  Sampler(5).fill_uniform(poly, 42, basis);
  for (std::size_t id = 0; id < preset.qp_rows(); ++id) {
    double mean = 0;
    for (std::size_t k = 0; k < preset.n(); ++k) {
      ASSERT_LT(poly.row(id)[k], basis.prime(id));
      mean += static_cast<double>(poly.row(id)[k]) / static_cast<double>(basis.prime(id));
    }
    mean /= static_cast<double>(preset.n());
    EXPECT_NEAR(mean, 0.5, 0.02) << "row " << id;  // 4096 draws: sd of the mean ~0.0045
  }
}

TEST(Sampler, TernaryIsBalanced) {
  const auto values = Sampler(3).ternary(make_stream_id(RandomPurpose::secret_key, 0, 0), 1 << 16);
  std::map<int, int> counts;
  for (std::int8_t v : values) counts[v]++;
  ASSERT_EQ(counts.size(), 3u);
  for (int v : {-1, 0, 1}) EXPECT_NEAR(counts[v] / 65536.0, 1.0 / 3, 0.01) << "value " << v;
}

TEST(Sampler, GaussianHasSigma319AndIsTruncated) {
  const auto values = Sampler(11).gaussian(make_stream_id(RandomPurpose::encrypt_e, 0, 0), 1 << 18);
  double sum = 0, sum_squares = 0;
  int largest = 0;
  for (std::int8_t v : values) {
    sum += v;
    sum_squares += static_cast<double>(v) * v;
    largest = std::max(largest, std::abs(static_cast<int>(v)));
  }
  const double count = static_cast<double>(values.size());
  EXPECT_NEAR(sum / count, 0.0, 0.03);
  EXPECT_NEAR(std::sqrt(sum_squares / count), 3.19, 0.03);
  EXPECT_LE(largest, kGaussianMaxMagnitude);
  EXPECT_GE(largest, 12);  // the tail is populated
}

TEST(Sampler, GaussianTableMatchesTheDistribution) {
  // Recompute P(|x| <= k) in long double and probe just below / above each
  // threshold T[k] = floor(2^64 P(|x| <= k)).
  const long double sigma = 3.19L;
  long double total = 0;
  for (int k = -kGaussianMaxMagnitude; k <= kGaussianMaxMagnitude; ++k) {
    total += std::exp(-static_cast<long double>(k) * k / (2 * sigma * sigma));
  }
  long double cumulative = 0;
  for (int k = 0; k < kGaussianMaxMagnitude; ++k) {
    const long double rho = std::exp(-static_cast<long double>(k) * k / (2 * sigma * sigma));
    cumulative += (k == 0 ? rho : 2 * rho) / total;
    const long double threshold = std::ldexp(cumulative, 64);
    const auto below = static_cast<std::uint64_t>(threshold - std::ldexp(1.0L, 24));
    const auto above = static_cast<std::uint64_t>(threshold + std::ldexp(1.0L, 24));
    EXPECT_EQ(gaussian_from_chunk({below, 0}), k) << "just below T[" << k << "]";
    EXPECT_EQ(gaussian_from_chunk({above, 0}), k + 1) << "just above T[" << k << "]";
    EXPECT_EQ(gaussian_from_chunk({above, std::uint64_t{1} << 63}), -(k + 1)) << "sign bit";
  }
  EXPECT_EQ(gaussian_from_chunk({~std::uint64_t{0}, 0}), kGaussianMaxMagnitude);
}

}  // namespace
}  // namespace fhe
