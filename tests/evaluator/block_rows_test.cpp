// Rows constant over aligned blocks (evaluator/block_rows.h): the detected
// block size, the words kept, the period rule, and that an encoded periodic
// slot vector really is such a plaintext while a general one is not.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <vector>

#include "evaluator/block_rows.h"
#include "fhe/ckks/engine.h"
#include "fhe/core/error.h"

namespace fhe {
namespace {

// rows x n words, each row constant over blocks of 2^block_log, neighbouring
// blocks different.
std::vector<std::uint64_t> blocky_rows(std::size_t rows, std::size_t n, int block_log, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::uint64_t> words(rows * n);
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i % (std::size_t{1} << block_log) == 0) value += 1 + random() % 1000;
    words[i] = value;
  }
  return words;
}

TEST(BlockRows, DetectsTheLargestBlockAndKeepsOneWordEach) {
  constexpr std::size_t kN = 64;
  for (int block_log = 0; block_log <= 6; ++block_log) {
    const std::vector<std::uint64_t> words = blocky_rows(3, kN, block_log, 11);
    ASSERT_EQ(constant_block_log(words, kN), block_log);
    std::vector<std::uint64_t> blocks(words.size() >> block_log);
    block_words(words, block_log, {reinterpret_cast<std::uint8_t*>(blocks.data()), blocks.size() * 8});
    for (std::size_t i = 0; i < words.size(); ++i) ASSERT_EQ(blocks[i >> block_log], words[i]) << i;
  }
  // Two words changed inside a block of 16, from an index that is 2 mod 4:
  // blocks of 2 are left; one word alone leaves none.
  std::vector<std::uint64_t> words = blocky_rows(2, 64, 4, 12);
  words[64 + 16 + 6] += 1;
  words[64 + 16 + 7] += 1;
  EXPECT_EQ(constant_block_log(words, 64), 1);
  words[64 + 16 + 7] -= 1;
  EXPECT_EQ(constant_block_log(words, 64), 0);
  // Rows of one value each: blocks of the whole row, never across rows.
  EXPECT_EQ(constant_block_log(std::vector<std::uint64_t>(4 * 32, 7), 32), 5);
  EXPECT_EQ(constant_block_log(blocky_rows(4, 32, 5, 13), 32), 5);
}

TEST(BlockRows, PeriodRuleAndRefusals) {
  EXPECT_EQ(periodic_block_log(65536, 128), 8);
  EXPECT_EQ(periodic_block_log(65536, 32768), 0);
  EXPECT_EQ(periodic_block_log(4096, 16), 7);
  EXPECT_THROW(periodic_block_log(65536, 65536), InvalidArgument);  // more than n/2 slots
  EXPECT_THROW(periodic_block_log(65536, 96), InvalidArgument);
  EXPECT_THROW(constant_block_log(std::vector<std::uint64_t>(96), 48), InvalidArgument);
  EXPECT_THROW(constant_block_log(std::vector<std::uint64_t>(100), 64), InvalidArgument);
  std::vector<std::uint8_t> bytes(16);
  EXPECT_THROW(block_words(std::vector<std::uint64_t>(12), 3, bytes), InvalidArgument);  // not whole blocks
  EXPECT_THROW(block_words(std::vector<std::uint64_t>(16), 2, bytes), InvalidArgument);  // 4 words, not 2
}

// The encoder's words, not only the algebra: a slot vector of period d gives
// an NTT-form plaintext constant over blocks of N/2d words on every row (QP
// rows, at level 0 and at a lower level); a general vector does not.
TEST(BlockRows, EncodedPeriodicSlotVectorsAreConstantOverBlocks) {
  const CkksEngine engine("test-slots2048-scale40-levels6-int64", EngineOptions{.seed = 3});
  const std::size_t n = engine.preset().n(), slots = engine.slot_count();
  std::mt19937_64 random(21);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const std::size_t period : {std::size_t{4}, std::size_t{16}, std::size_t{128}, slots}) {
    std::vector<double> pattern(period);
    for (double& v : pattern) v = unit(random);
    std::vector<double> values(slots);
    for (std::size_t t = 0; t < slots; ++t) values[t] = pattern[t % period];
    for (const int level : {0, 3}) {
      const Plaintext plain = engine.encode_extended(values, level);
      const std::span<const std::uint64_t> words(plain.poly.data(), plain.poly.row_count() * n);
      EXPECT_EQ(constant_block_log(words, n), periodic_block_log(n, period))
          << "period " << period << ", level " << level;
    }
  }
}

}  // namespace
}  // namespace fhe
