// The device layout of key-switching keys (evaluator/switch_key_layout.h):
// which rows are narrow at the presets, where a word's bytes go, and the
// refusals. The kernels' reading of packed keys is checked against the
// 64-bit words by the fused key product's emulation test
// (tests/evaluator/gpu/region_key_product_emulation_test.cpp) and, on a
// GPU, by the evaluator's word tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "evaluator/switch_key_layout.h"
#include "fhe/core/error.h"
#include "fhe/params/preset.h"

namespace fhe {
namespace {

TEST(SwitchKeyLayout, NarrowRowsAreTheLeadingPrimesBelow2To48) {
  // Default: 34 scale primes of about 40 bits, then the 60-bit base and P.
  const SwitchKeyLayout standard = switch_key_layout(preset_by_name(kDefaultPresetName));
  EXPECT_EQ(standard.rows, 39u);
  EXPECT_EQ(standard.narrow_rows, 34u);
  EXPECT_EQ(standard.component_bytes(), (34u * 6 + 5 * 8) * 65536);
  // 50-bit scale primes: nothing narrow; int32: every row narrow.
  EXPECT_EQ(switch_key_layout(preset_by_name("slots32768-scale50-levels27-int64")).narrow_rows, 0u);
  const Preset& int32 = preset_by_name("slots32768-scale25-levels24-int32");
  EXPECT_EQ(switch_key_layout(int32).narrow_rows, int32.qp_rows());
  // A wide prime ends the narrow prefix, even with narrow ones after it.
  const std::vector<std::uint64_t> primes = {97, 193, (std::uint64_t{1} << 48) + 1, 257};
  EXPECT_EQ(switch_key_layout(primes, 4).narrow_rows, 2u);
}

TEST(SwitchKeyLayout, PacksNarrowRowsIntoTwoPlanesAndWideRowsWhole) {
  const SwitchKeyLayout layout{3, 2, 4};  // rows, narrow rows, n
  ASSERT_EQ(layout.component_bytes(), 2u * 4 * 6 + 4 * 8);
  std::vector<std::uint64_t> words(12);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = 0x0000'ab00'1234'5600ull + i;
  words[8] = 0xfedc'ba98'7654'3210ull;  // a wide row holds any word
  std::vector<std::uint8_t> bytes(layout.component_bytes());
  pack_switch_key_component(words, layout, bytes);
  // Row 1, word 2 (word 6): low 32 bits at (1 x 4 + 2) x 4, high 16 bits
  // after the 8 low words, at 32 + 6 x 2; little-endian.
  const SwitchKeyLayout::Place narrow = layout.place(1, 2);
  EXPECT_TRUE(narrow.narrow);
  EXPECT_EQ(narrow.low, 24u);
  EXPECT_EQ(narrow.high, 44u);
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 24, bytes.begin() + 28),
            (std::vector<std::uint8_t>{0x06, 0x56, 0x34, 0x12}));
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 44, bytes.begin() + 46),
            (std::vector<std::uint8_t>{0x00, 0xab}));
  // Row 2 (wide), word 0: 8 bytes after the two planes (48 bytes).
  const SwitchKeyLayout::Place wide = layout.place(2, 0);
  EXPECT_FALSE(wide.narrow);
  EXPECT_EQ(wide.low, 48u);
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 48, bytes.begin() + 56),
            (std::vector<std::uint8_t>{0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe}));
}

TEST(SwitchKeyLayout, RefusesWordsThatDoNotFitAndWrongSizes) {
  const SwitchKeyLayout layout{2, 1, 4};
  std::vector<std::uint64_t> words(8, 5);
  std::vector<std::uint8_t> bytes(layout.component_bytes());
  words[3] = std::uint64_t{1} << 48;  // row 0 is narrow
  EXPECT_THROW(pack_switch_key_component(words, layout, bytes), InvalidArgument);
  words[3] = 5;
  words[7] = ~std::uint64_t{0};  // row 1 is wide: fine
  EXPECT_NO_THROW(pack_switch_key_component(words, layout, bytes));
  std::vector<std::uint8_t> short_bytes(bytes.size() - 1);
  EXPECT_THROW(pack_switch_key_component(words, layout, short_bytes), InvalidArgument);
  EXPECT_THROW(pack_switch_key_component(std::span(words).first(7), layout, bytes), InvalidArgument);
}

}  // namespace
}  // namespace fhe
