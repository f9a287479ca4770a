// Packed plaintext rows (evaluator/packed_rows.h): every word read back as
// packed, at level 0 and a lower level of the default preset, and the
// refusals. The narrow rows are counted here from the primes themselves.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "evaluator/packed_rows.h"
#include "fhe/core/error.h"
#include "fhe/params/preset.h"

namespace fhe {
namespace {

constexpr std::size_t kN = 64;  // a few words a row: the layout does not depend on N

std::size_t leading_below_2_48(std::span<const std::uint64_t> primes) {
  std::size_t count = 0;
  while (count < primes.size() && primes[count] < (std::uint64_t{1} << 48)) ++count;
  return count;
}

TEST(PackedRows, EveryWordReadsBackAtEveryLevel) {
  const Preset& preset = preset_by_name(kDefaultPresetName);
  const std::vector<std::uint64_t> qp = preset.qp_primes();
  std::mt19937_64 random(5);
  for (const std::size_t level : {std::size_t{0}, std::size_t{20}}) {
    const std::span<const std::uint64_t> primes = std::span<const std::uint64_t>(qp).subspan(level);
    const PackedRows layout = packed_rows(primes, kN);
    const std::size_t narrow = leading_below_2_48(primes);
    ASSERT_GT(narrow, 0u);
    ASSERT_LT(narrow, primes.size());
    EXPECT_EQ(layout.narrow_rows, narrow);
    EXPECT_EQ(layout.bytes(), (narrow * 6 + (primes.size() - narrow) * 8) * kN);
    std::vector<std::uint64_t> words(primes.size() * kN);
    for (std::size_t r = 0; r < primes.size(); ++r) {
      for (std::size_t k = 0; k < kN; ++k) words[r * kN + k] = random() % primes[r];
      words[r * kN] = primes[r] - 1;  // the largest word of the row
    }
    std::vector<std::uint64_t> storage((layout.bytes() + 7) / 8);  // 8-byte aligned
    const std::span<std::uint8_t> bytes(reinterpret_cast<std::uint8_t*>(storage.data()), layout.bytes());
    pack_rows(words, layout, bytes);
    for (std::size_t r = 0; r < primes.size(); ++r) {
      for (std::size_t k = 0; k < kN; ++k) {
        ASSERT_EQ(layout.word(bytes.data(), r, k), words[r * kN + k]) << "level " << level << " row " << r;
      }
    }
  }
}

TEST(PackedRows, RefusesWideWordsInNarrowRowsAndWrongSizes) {
  const Preset& preset = preset_by_name(kDefaultPresetName);
  const std::vector<std::uint64_t> qp = preset.qp_primes();
  const PackedRows layout = packed_rows(qp, kN);
  std::vector<std::uint64_t> words(qp.size() * kN, 1);
  std::vector<std::uint8_t> bytes(layout.bytes());
  words[3] = std::uint64_t{1} << 48;
  EXPECT_THROW(pack_rows(words, layout, bytes), InvalidArgument);
  words[3] = 1;
  std::vector<std::uint8_t> short_bytes(layout.bytes() - 1);
  EXPECT_THROW(pack_rows(words, layout, short_bytes), InvalidArgument);
  words.pop_back();
  EXPECT_THROW(pack_rows(words, layout, bytes), InvalidArgument);
}

}  // namespace
}  // namespace fhe
