// The device layout of key-switching keys (evaluator/switch_key_layout.h):
// which rows are narrow at the presets, where a word's bytes go, and the
// refusals. The kernels' reading of packed keys is checked against the
// 64-bit words by the fused key product's emulation test
// (tests/evaluator/gpu/region_key_product_emulation_test.cpp) and, on a
// GPU, by the evaluator's word tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "evaluator/cuda_workspace.h"
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
  EXPECT_EQ(standard.digit_bytes(), (34u * 12 + 5 * 16) * 65536);
  // 50-bit scale primes: nothing narrow; int32: every row narrow.
  EXPECT_EQ(switch_key_layout(preset_by_name("slots32768-scale50-levels27-int64")).narrow_rows, 0u);
  const Preset& int32 = preset_by_name("slots32768-scale25-levels24-int32");
  EXPECT_EQ(switch_key_layout(int32).narrow_rows, int32.qp_rows());
  // A wide prime ends the narrow prefix, even with narrow ones after it.
  const std::vector<std::uint64_t> primes = {97, 193, (std::uint64_t{1} << 48) + 1, 257};
  EXPECT_EQ(switch_key_layout(primes, 4).narrow_rows, 2u);
}

// The rotation kernels address a key's words and the hoisted digits' in 32
// bits (key_terms.cuh): every preset fits, with room (the largest key is
// below 2^29 words); N = 2^24 at the default preset's primes does not.
TEST(SwitchKeyLayout, EveryPresetsKeyTermsFit32BitOffsets) {
  std::size_t largest_key_words = 0;
  for (const Preset& preset : all_presets()) {
    EXPECT_TRUE(key_terms_fit_32_bit_offsets(preset)) << preset.name;
    largest_key_words = std::max(largest_key_words, device_switch_key_bytes(preset) / 8);
  }
  EXPECT_LT(largest_key_words, std::size_t{1} << 29);
  Preset huge = preset_by_name(kDefaultPresetName);
  huge.log_n = 24;  // 10 digits of 488 x 2^24 bytes: 2^30 words a digit
  EXPECT_FALSE(key_terms_fit_32_bit_offsets(huge));
}

std::vector<std::uint8_t> bytes_at(const std::vector<std::uint8_t>& bytes, std::size_t at, std::size_t count) {
  return {bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(at + count)};
}

TEST(SwitchKeyLayout, PacksNarrowRowsAsLowPairsAndHighHalvesWideRowsWhole) {
  const SwitchKeyLayout layout{3, 2, 4};  // rows, narrow rows, n
  ASSERT_EQ(layout.digit_bytes(), 2u * 4 * 12 + 4 * 16);
  std::vector<std::uint64_t> b(12), a(12);
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = 0x0000'ab00'1234'5600ull + i;
    a[i] = 0x0000'cd00'8765'4300ull + i;
  }
  b[8] = 0xfedc'ba98'7654'3210ull;  // a wide row holds any word
  a[11] = 0x0123'4567'89ab'cdefull;
  std::vector<std::uint8_t> bytes(layout.digit_bytes());
  pack_switch_key_digit(b, a, layout, bytes);
  // Row 1, word 2 (word 6): the low halves of b and a at (1 x 4 + 2) x 8,
  // the high 16 bits of b and a after the 8 pairs, at 64 + 6 x 4;
  // little-endian.
  const SwitchKeyLayout::Place narrow = layout.place(1, 2);
  EXPECT_TRUE(narrow.narrow);
  EXPECT_EQ(narrow.first, 48u);
  EXPECT_EQ(narrow.second, 88u);
  EXPECT_EQ(bytes_at(bytes, 48, 8), (std::vector<std::uint8_t>{0x06, 0x56, 0x34, 0x12, 0x06, 0x43, 0x65, 0x87}));
  EXPECT_EQ(bytes_at(bytes, 88, 4), (std::vector<std::uint8_t>{0x00, 0xab, 0x00, 0xcd}));
  // Row 2 (wide): b's words after the two planes (96 bytes), then a's.
  const SwitchKeyLayout::Place first = layout.place(2, 0), last = layout.place(2, 3);
  EXPECT_FALSE(first.narrow);
  EXPECT_EQ(first.first, 96u);
  EXPECT_EQ(first.second, 128u);
  EXPECT_EQ(last.second, 152u);
  EXPECT_EQ(bytes_at(bytes, 96, 8), (std::vector<std::uint8_t>{0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe}));
  EXPECT_EQ(bytes_at(bytes, 152, 8), (std::vector<std::uint8_t>{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}));
}

// Rows packed one at a time, in any order (as the upload's tasks do), give
// the digit's bytes; a range past the layout is refused.
TEST(SwitchKeyLayout, RowsPackedApartGiveTheDigitsBytes) {
  const SwitchKeyLayout layout = switch_key_layout(std::vector<std::uint64_t>{1099511922689ULL, 1099512004609ULL,
                                                                              (std::uint64_t{1} << 60) - 93}, 4);
  ASSERT_EQ(layout.narrow_rows, 2u);
  std::vector<std::uint64_t> b(12), a(12);
  for (std::size_t i = 0; i < 12; ++i) {
    b[i] = (i < 8 ? std::uint64_t{0x9876'5432'10} : std::uint64_t{0x0fed'cba9'8765'4321}) + i * 977;
    a[i] = (i < 8 ? std::uint64_t{0x1234'5678'9a} : std::uint64_t{0x0123'4567'89ab'cdef}) + i * 131;
  }
  std::vector<std::uint8_t> whole(layout.digit_bytes()), apart(layout.digit_bytes(), 0xEE);
  pack_switch_key_digit(b, a, layout, whole);
  for (std::size_t row : {2u, 0u, 1u}) pack_switch_key_rows(b, a, layout, row, 1, apart);
  EXPECT_EQ(apart, whole);
  EXPECT_THROW(pack_switch_key_rows(b, a, layout, 2, 2, apart), InvalidArgument);
  EXPECT_THROW(pack_switch_key_rows(b, a, layout, 4, 0, apart), InvalidArgument);
}

TEST(SwitchKeyLayout, RefusesWordsThatDoNotFitAndWrongSizes) {
  const SwitchKeyLayout layout{2, 1, 4};
  std::vector<std::uint64_t> b(8, 5), a(8, 7);
  std::vector<std::uint8_t> bytes(layout.digit_bytes());
  a[3] = std::uint64_t{1} << 48;  // row 0 is narrow
  EXPECT_THROW(pack_switch_key_digit(b, a, layout, bytes), InvalidArgument);
  a[3] = 7;
  b[7] = ~std::uint64_t{0};  // row 1 is wide: fine
  EXPECT_NO_THROW(pack_switch_key_digit(b, a, layout, bytes));
  std::vector<std::uint8_t> short_bytes(bytes.size() - 1);
  EXPECT_THROW(pack_switch_key_digit(b, a, layout, short_bytes), InvalidArgument);
  EXPECT_THROW(pack_switch_key_digit(b, std::span(a).first(7), layout, bytes), InvalidArgument);
}

}  // namespace
}  // namespace fhe
