// Packed plaintext rows (packed_rows.h).
#include "evaluator/packed_rows.h"

#include <cstring>
#include <string>

#include "evaluator/switch_key_layout.h"
#include "fhe/core/error.h"

namespace fhe {

PackedRows packed_rows(std::span<const std::uint64_t> primes, std::size_t n) {
  const SwitchKeyLayout key = switch_key_layout(primes, n);  // the keys' narrow rows
  return {key.rows, key.narrow_rows, n};
}

void pack_rows(std::span<const std::uint64_t> words, const PackedRows& layout, std::span<std::uint8_t> out) {
  if (words.size() != layout.rows * layout.n || out.size() != layout.bytes()) {
    throw InvalidArgument("pack_rows: " + std::to_string(words.size()) + " words into " +
                          std::to_string(out.size()) + " bytes, the layout has " + std::to_string(layout.rows) +
                          " rows of " + std::to_string(layout.n));
  }
  const std::size_t narrow_words = layout.narrow_rows * layout.n;
  for (std::size_t i = 0; i < narrow_words; ++i) {
    if (words[i] >= kNarrowKeyRowBound) {
      throw InvalidArgument("pack_rows: word " + std::to_string(i) + " of a narrow row is " +
                            std::to_string(words[i]) + ", not below 2^48");
    }
    const auto low = static_cast<std::uint32_t>(words[i]);
    const auto high = static_cast<std::uint16_t>(words[i] >> 32);
    std::memcpy(out.data() + i * 4, &low, 4);
    std::memcpy(out.data() + narrow_words * 4 + i * 2, &high, 2);
  }
  std::memcpy(out.data() + narrow_words * 6, words.data() + narrow_words, (words.size() - narrow_words) * 8);
}

}  // namespace fhe
