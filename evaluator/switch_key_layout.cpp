// A key-switching key's device layout (switch_key_layout.h).
#include "evaluator/switch_key_layout.h"

#include <cstring>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

SwitchKeyLayout switch_key_layout(std::span<const std::uint64_t> primes, std::size_t n) {
  SwitchKeyLayout layout;
  layout.rows = primes.size();
  layout.n = n;
  while (layout.narrow_rows < primes.size() && primes[layout.narrow_rows] < kNarrowKeyRowBound) {
    ++layout.narrow_rows;
  }
  return layout;
}

SwitchKeyLayout switch_key_layout(const Preset& preset) {
  return switch_key_layout(preset.qp_primes(), preset.n());
}

std::size_t device_switch_key_bytes(const Preset& preset) {
  return static_cast<std::size_t>(preset.dnum()) * 2 * switch_key_layout(preset).component_bytes();
}

void pack_switch_key_component(std::span<const std::uint64_t> words, const SwitchKeyLayout& layout,
                               std::span<std::uint8_t> out) {
  if (words.size() != layout.rows * layout.n || out.size() != layout.component_bytes()) {
    throw InvalidArgument("pack_switch_key_component: " + std::to_string(words.size()) + " words into " +
                          std::to_string(out.size()) + " bytes, the layout has " +
                          std::to_string(layout.rows) + " rows of " + std::to_string(layout.n));
  }
  const std::size_t narrow_words = layout.narrow_rows * layout.n;
  for (std::size_t i = 0; i < narrow_words; ++i) {
    if (words[i] >= kNarrowKeyRowBound) {
      throw InvalidArgument("pack_switch_key_component: word " + std::to_string(i) + " of a narrow row is " +
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
