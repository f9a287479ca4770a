// Rows constant over aligned blocks (block_rows.h).
#include "evaluator/block_rows.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

int constant_block_log(std::span<const std::uint64_t> words, std::size_t n) {
  if (!std::has_single_bit(n) || words.size() % n != 0) {
    throw InvalidArgument("constant_block_log: " + std::to_string(words.size()) + " words are not rows of " +
                          std::to_string(n) + " (a power of two)");
  }
  // Rows are constant over blocks of 2^b exactly when every index where the
  // word changes is a multiple of 2^b (a row start, a multiple of n, always is).
  int block_log = std::countr_zero(n);
  for (std::size_t i = 1; i < words.size() && block_log > 0; ++i) {
    if (words[i] != words[i - 1]) block_log = std::min(block_log, std::countr_zero(i));
  }
  return block_log;
}

void block_words(std::span<const std::uint64_t> words, int block_log, std::span<std::uint8_t> out) {
  const std::size_t block = std::size_t{1} << block_log;
  if (block_log < 0 || words.size() % block != 0 || out.size() != (words.size() >> block_log) * 8) {
    throw InvalidArgument("block_words: " + std::to_string(words.size()) + " words in blocks of 2^" +
                          std::to_string(block_log) + " into " + std::to_string(out.size()) + " bytes");
  }
  for (std::size_t i = 0; i < out.size() / 8; ++i) std::memcpy(out.data() + 8 * i, &words[i << block_log], 8);
}

int periodic_block_log(std::size_t n, std::size_t period) {
  if (!std::has_single_bit(n) || !std::has_single_bit(period) || 2 * period > n) {
    throw InvalidArgument("periodic_block_log: a period of " + std::to_string(period) + " slots at degree " +
                          std::to_string(n) + " (powers of two, the period at most n/2)");
  }
  return std::countr_zero(n / (2 * period));
}

}  // namespace fhe
