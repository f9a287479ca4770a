// key_terms.cuh on the host: the key inner product in every shape the
// kernels compile (predicated rounds of 5 and 1 digits, unpredicated rounds
// of 5 and 10; the rotation kernels' wide rows in predicated rounds of 2
// beside narrow rows' products in 64-bit sums, the fused kernel's rounds of
// 10 with those sums), over 11 digits (full rounds and digits left over)
// and over the 64-bit sums' most digits, against the sum of digit x key word
// products in plain modular arithmetic, with keys packed in the device layout
// (switch_key_layout.h) over narrow rows (40- and 48-bit primes) beside
// wide ones (60-bit); and the rotation kernels' loader of the hoisted digits.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "evaluator/cuda/key_terms.cuh"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;
constexpr auto kSplit = cuda::terms::NarrowSums::split;
constexpr auto kChained = cuda::terms::NarrowSums::chained;

u64 mul(u64 x, u64 y, u64 q) { return static_cast<u64>(static_cast<unsigned __int128>(x) * y % q); }

struct Fixture {
  static constexpr int kLogN = 6, kNarrow = 3, kWide = 2, kFirstDigit = 2;
  int digit_count;
  std::size_t n = std::size_t{1} << kLogN, rows = kNarrow + kWide;
  std::vector<u64> moduli, digits, key_words;  // key: components x (b, a) x rows x n
  std::vector<std::uint8_t> packed;
  SwitchKeyLayout layout;

  // Narrow rows of `narrow_bits`-bit primes; `largest`: every digit and key
  // word q - 1, the sums' largest terms.
  explicit Fixture(int narrow_bits, bool largest = false, int digit_count = 11) : digit_count(digit_count) {
    moduli = testing::ntt_moduli(kLogN, kNarrow, narrow_bits);
    for (u64 q : testing::ntt_moduli(kLogN, kWide, 60)) moduli.push_back(q);
    layout = switch_key_layout(moduli, n);
    std::mt19937_64 rng(17);
    const std::size_t components = kFirstDigit + static_cast<std::size_t>(digit_count);
    digits.resize(static_cast<std::size_t>(digit_count) * rows * n);
    for (std::size_t i = 0; i < digits.size(); ++i) digits[i] = rng() % moduli[(i / n) % rows];
    key_words.resize(components * 2 * rows * n);
    for (std::size_t i = 0; i < key_words.size(); ++i) key_words[i] = rng() % moduli[(i / n) % rows];
    if (largest) {
      for (std::size_t i = 0; i < digits.size(); ++i) digits[i] = moduli[(i / n) % rows] - 1;
      for (std::size_t i = 0; i < key_words.size(); ++i) key_words[i] = moduli[(i / n) % rows] - 1;
    }
    packed.resize(components * layout.digit_bytes());
    for (std::size_t c = 0; c < components; ++c) {
      pack_switch_key_digit(std::span(key_words).subspan(2 * c * rows * n, rows * n),
                            std::span(key_words).subspan((2 * c + 1) * rows * n, rows * n), layout,
                            std::span(packed).subspan(c * layout.digit_bytes(), layout.digit_bytes()));
    }
  }

  // Mismatching words of one shape over every (row, k).
  template <int DigitsPerRound, bool Predicated, int WideDigitsPerRound = DigitsPerRound,
            cuda::terms::NarrowSums Sums = cuda::terms::NarrowSums::wide>
  std::size_t mismatches() const {
    std::size_t bad = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const u64 q = moduli[r];
      const cuda::DeviceModulus m(q);
      for (std::size_t k = 0; k < n; ++k) {
        const auto digit_word = [&](int d) { return digits[(static_cast<std::size_t>(d) * rows + r) * n + k]; };
        u64 b = 0, a = 0;
        cuda::terms::key_inner_product<DigitsPerRound, Predicated, WideDigitsPerRound, Sums>(
            digit_word, digit_count, packed.data(), layout, kFirstDigit, r, k, m, b, a);
        u64 want_b = 0, want_a = 0;
        for (int d = 0; d < digit_count; ++d) {
          const std::size_t component = 2 * static_cast<std::size_t>(kFirstDigit + d);
          want_b = (want_b + mul(digit_word(d), key_words[(component * rows + r) * n + k], q)) % q;
          want_a = (want_a + mul(digit_word(d), key_words[((component + 1) * rows + r) * n + k], q)) % q;
        }
        bad += (b != want_b) + (a != want_a);
      }
    }
    return bad;
  }
};

// Narrow rows of the default preset's 40-bit primes and of primes just
// below the narrow bound (2^48), random words and the largest ones.
TEST(KeyTermsEmulation, EveryShapeOfTheKeyInnerProductSumsThePackedKey) {
  for (const int bits : {40, 48}) {
    for (const bool largest : {false, true}) {
      const Fixture f(bits, largest);
      ASSERT_EQ(f.layout.narrow_rows, static_cast<std::size_t>(Fixture::kNarrow));
      ASSERT_GT(f.moduli[0], std::uint64_t{1} << (bits - 1));
      EXPECT_EQ((f.mismatches<5, true>()), 0u) << bits << "-bit rows, largest words " << largest;
      EXPECT_EQ((f.mismatches<1, true>()), 0u) << bits << "-bit rows, largest words " << largest;
      EXPECT_EQ((f.mismatches<5, false>()), 0u) << bits << "-bit rows, largest words " << largest;
      EXPECT_EQ((f.mismatches<10, false>()), 0u) << bits << "-bit rows, largest words " << largest;
      EXPECT_EQ((f.mismatches<5, true, 2, kSplit>()), 0u) << bits << "-bit rows, largest words " << largest;
      EXPECT_EQ((f.mismatches<10, false, 10, kChained>()), 0u) << bits << "-bit rows, largest words " << largest;
    }
  }
}

// The narrow rows' 64-bit sums at their bound: the most digits they allow,
// each word q - 1 of primes just below 2^48.
TEST(KeyTermsEmulation, TheSplitSumsStayExactAtTheirMostDigits) {
  const Fixture f(48, true, cuda::terms::kMaxSplitSumDigits);
  EXPECT_EQ((f.mismatches<5, true, 2, kSplit>()), 0u);
  EXPECT_EQ((f.mismatches<10, false, 10, kChained>()), 0u);
}

// The rotation kernels' loader of the hoisted digits (ExtendedDigits), in
// 32-bit offsets and in 64: digit d's row r at word source_k.
TEST(KeyTermsEmulation, ExtendedDigitsReadTheDigitsRowAndWord) {
  const Fixture f(40);
  std::size_t bad = 0;
  for (std::size_t r = 0; r < f.rows; ++r) {
    const cuda::terms::ExtendedDigits<> narrow{f.digits.data(), f.rows, f.n, r};
    const cuda::terms::ExtendedDigits<std::size_t> wide{f.digits.data(), f.rows, f.n, r};
    for (int d = 0; d < f.digit_count; ++d) {
      for (std::size_t k = 0; k < f.n; ++k) {
        const u64 want = f.digits[(static_cast<std::size_t>(d) * f.rows + r) * f.n + k];
        bad += (narrow(d, k) != want) + (wide(d, k) != want);
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace fhe
