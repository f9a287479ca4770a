// Shared-memory slots of the pass-pair and pass-group blocks
// (pass_pair.cuh). For every pass of every block the kernels run, a warp's
// access to one word of its columns should take the fewest wavefronts its
// bytes need: 2 for 64-bit words (256 bytes over 32 four-byte banks), 1
// for 32-bit. Counted from PassBlockColumns::slot as the hardware serves
// them: the most distinct four-byte words any one bank holds for the warp.
// And the kernels' split form of a slot (slot_of_word: word 0's slot plus
// a constant a word) is that slot for every thread, column and word, as the
// region tiles' (padded_column_word, padded_row_word) are padded().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "fhe/ntt/cuda/pass_pair.cuh"

namespace {

using fhe::ntt::gpu::kPairBlockThreads;
using fhe::ntt::gpu::kThreadsPerTile;
using fhe::ntt::gpu::kWordsPerThread;
using fhe::ntt::gpu::padded;
using fhe::ntt::gpu::PassBlockColumns;

constexpr std::uint32_t kWarp = 32;
constexpr std::uint32_t kBanks = 32;

// The most wavefronts any warp of the block takes for one (l, k) access of
// the pass of G stages Offset stages into a block of S.
template <int S, int G, int Offset>
int worst_wavefronts(std::uint32_t word_bytes) {
  using Block = PassBlockColumns<S, G, Offset>;
  const std::uint32_t bank_words = word_bytes / 4;
  int worst = 0;
  for (std::uint32_t warp = 0; warp < kPairBlockThreads / kWarp; ++warp) {
    for (int l = 0; l < Block::kColumnsPerThread; ++l) {
      for (int k = 0; k < Block::kSpan; ++k) {
        std::map<std::uint32_t, std::set<std::uint32_t>> bank_words_served;
        for (std::uint32_t lane = 0; lane < kWarp; ++lane) {
          const std::uint32_t thread = warp * kWarp + lane;
          const std::uint32_t slot = Block::slot(Block::class_of(thread, l), Block::m_of(Block::column_of(thread), k));
          for (std::uint32_t b = 0; b < bank_words; ++b) {
            const std::uint32_t word = slot * bank_words + b;
            bank_words_served[word % kBanks].insert(word);
          }
        }
        for (const auto& [bank, words] : bank_words_served) worst = std::max(worst, static_cast<int>(words.size()));
      }
    }
  }
  return worst;
}

// The accesses (thread, l, k) of the pass whose slot_of_word differs from
// the slot of word k's multiple m.
template <int S, int G, int Offset>
int split_slot_mismatches() {
  using Block = PassBlockColumns<S, G, Offset>;
  int mismatches = 0;
  for (std::uint32_t thread = 0; thread < kPairBlockThreads; ++thread) {
    const std::uint32_t column = Block::column_of(thread);
    for (int l = 0; l < Block::kColumnsPerThread; ++l) {
      const std::uint32_t cls = Block::class_of(thread, l);
      for (int k = 0; k < Block::kSpan; ++k) {
        const std::uint32_t split = Block::slot_of_word(Block::slot(cls, Block::m_of(column, 0)), k);
        mismatches += split == Block::slot(cls, Block::m_of(column, k)) ? 0 : 1;
      }
    }
  }
  return mismatches;
}

// f.template operator()<S, G, Offset>() for each pass of a block whose
// passes have `Stages...` stages, in order.
template <int... Stages, typename F>
std::vector<int> each_pass(F f) {
  constexpr int kSpan = (Stages + ...);
  std::vector<int> results;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    constexpr int kStages[] = {Stages...};
    constexpr auto offset = [](std::size_t pass) {
      int sum = 0;
      for (std::size_t p = 0; p < pass; ++p) sum += kStages[p];
      return sum;
    };
    (results.push_back(f.template operator()<kSpan, kStages[I], offset(I)>()), ...);
  }(std::make_index_sequence<sizeof...(Stages)>{});
  return results;
}

// The worst of each pass of a block whose passes have `Stages...` stages.
template <int... Stages>
std::vector<int> block_wavefronts(std::uint32_t word_bytes) {
  return each_pass<Stages...>([&]<int S, int G, int Offset>() { return worst_wavefronts<S, G, Offset>(word_bytes); });
}

template <int... Stages>
std::vector<int> block_slot_mismatches() {
  return each_pass<Stages...>([]<int S, int G, int Offset>() { return split_slot_mismatches<S, G, Offset>(); });
}

TEST(PassBlockBanks, PairsTakeTheFewestWavefronts) {
  EXPECT_EQ((block_wavefronts<2, 2>(8)), (std::vector<int>{2, 2}));
  EXPECT_EQ((block_wavefronts<3, 3>(8)), (std::vector<int>{2, 2}));
  EXPECT_EQ((block_wavefronts<4, 4>(8)), (std::vector<int>{2, 2}));
  EXPECT_EQ((block_wavefronts<2, 2>(4)), (std::vector<int>{1, 1}));
  EXPECT_EQ((block_wavefronts<3, 3>(4)), (std::vector<int>{1, 1}));
  EXPECT_EQ((block_wavefronts<4, 4>(4)), (std::vector<int>{1, 1}));
}

// With every column taking its runs in the same order the triple took 4,
// 4 and 8 wavefronts of 64-bit words and the quad 8 in each pass.
TEST(PassBlockBanks, GroupsTakeTheFewestWavefronts) {
  static_assert(fhe::ntt::gpu::kPassGroupShapes[0].count == 3 && fhe::ntt::gpu::kPassGroupShapes[1].count == 4);
  EXPECT_EQ((block_wavefronts<3, 3, 2>(8)), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ((block_wavefronts<2, 2, 2, 2>(8)), (std::vector<int>{2, 2, 2, 2}));
  // 32-bit words (the int32 presets) take 2 in the passes of 8 words a run
  // and the quad's first two (4 before the turns, 4 or 2 in the others).
  EXPECT_EQ((block_wavefronts<3, 3, 2>(4)), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ((block_wavefronts<2, 2, 2, 2>(4)), (std::vector<int>{2, 2, 1, 1}));
}

// Every pair and group the kernels run, each pass: no access differs.
TEST(PassBlockSlots, SplitSlotsAreTheSlotsOfTheirMultiples) {
  EXPECT_EQ((block_slot_mismatches<2, 2>()), (std::vector<int>{0, 0}));
  EXPECT_EQ((block_slot_mismatches<3, 3>()), (std::vector<int>{0, 0}));
  EXPECT_EQ((block_slot_mismatches<4, 4>()), (std::vector<int>{0, 0}));
  EXPECT_EQ((block_slot_mismatches<3, 3, 2>()), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ((block_slot_mismatches<2, 2, 2, 2>()), (std::vector<int>{0, 0, 0, 0}));
}

// Every thread of a tile, every word; and a column's first words at any x
// (the split region's lanes run past 16, the identity holds for all x).
TEST(TileSlots, ColumnAndRowWordsAreTheirPaddedIndices) {
  for (std::uint32_t x = 0; x < 4 * kThreadsPerTile; ++x) {
    for (int k = 0; k < kWordsPerThread; ++k) {
      const auto word = static_cast<std::uint32_t>(k);
      EXPECT_EQ(fhe::ntt::gpu::padded_column_word(x, k), padded(x + 16 * word)) << x << " " << k;
      if (x < kThreadsPerTile) EXPECT_EQ(fhe::ntt::gpu::padded_row_word(x, k), padded(16 * x + word)) << x << " " << k;
    }
  }
}

}  // namespace
