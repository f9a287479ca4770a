// plain_product_sums.cuh on the host: every thread of products_sums_kernel
// over rows of 40- or 48-bit primes beside 60-bit ones, a full launch of
// terms and a carried-in sum, plaintexts with every word and one word a
// block, against plain modular arithmetic; and every word at q - 1, the
// sums' largest inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "evaluator/cuda/plain_product_sums.cuh"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

u64 mul(u64 x, u64 y, u64 q) { return static_cast<u64>(static_cast<unsigned __int128>(x) * y % q); }

// out_j = carried_j (+) sum_t term_t (.) plain_(j,t) over `rows` rows of the
// given primes, 2 parts, as the kernel's threads compute it.
template <int Outputs>
void check(int small_bits, bool largest, std::uint64_t seed) {
  constexpr int kLogN = 6, kTerms = cuda::kMaxProductTerms;
  const std::size_t n = std::size_t{1} << kLogN;
  std::vector<u64> moduli = testing::ntt_moduli(kLogN, 2, small_bits);
  for (u64 q : testing::ntt_moduli(kLogN, 2, 60)) moduli.push_back(q);
  const std::size_t rows = moduli.size(), part = rows * n;
  std::mt19937_64 random(seed);
  auto word = [&](std::size_t row) { return largest ? moduli[row] - 1 : random() % moduli[row]; };
  std::vector<std::vector<u64>> terms(kTerms, std::vector<u64>(2 * part));
  for (auto& term : terms) {
    for (std::size_t i = 0; i < term.size(); ++i) term[i] = word((i % part) / n);
  }
  // Output j's plaintexts: one word a block of 2^(j % 3) x 4 words (or every word).
  std::vector<std::vector<std::vector<u64>>> plains(Outputs, std::vector<std::vector<u64>>(kTerms));
  std::vector<std::vector<u64>> outs(Outputs, std::vector<u64>(2 * part));
  cuda::ProductSums s;
  s.term_count = kTerms;
  s.output_count = Outputs;
  for (int t = 0; t < kTerms; ++t) s.terms[t] = terms[static_cast<std::size_t>(t)].data();
  for (int j = 0; j < Outputs; ++j) {
    const int block_log = j % 3 == 0 ? 0 : 2 * (j % 3);
    for (int t = 0; t < kTerms; ++t) {
      auto& plain = plains[static_cast<std::size_t>(j)][static_cast<std::size_t>(t)];
      plain.resize(part >> block_log);
      for (std::size_t b = 0; b < plain.size(); ++b) plain[b] = word((b << block_log) / n);
      s.plains[j][t] = plain.data();
      s.plain_block_logs[j][t] = static_cast<std::uint8_t>(block_log);
    }
    for (std::size_t i = 0; i < outs[static_cast<std::size_t>(j)].size(); ++i) {
      outs[static_cast<std::size_t>(j)][i] = word((i % part) / n);
    }
    s.outs[j] = outs[static_cast<std::size_t>(j)].data();
  }
  const std::vector<std::vector<u64>> carried = outs;
  for (std::size_t r = 0; r < rows; ++r) {
    const cuda::DeviceModulus m(moduli[r]);
    for (std::size_t k = 0; k < n; ++k) {
      cuda::terms::plain_product_sums_at<Outputs>(s, true, r * n + k, part, m);
    }
  }
  std::size_t mismatches = 0;
  for (int j = 0; j < Outputs; ++j) {
    for (std::size_t i = 0; i < 2 * part; ++i) {
      const std::size_t in_part = i % part, r = in_part / n;
      const u64 q = moduli[r];
      u64 expected = carried[static_cast<std::size_t>(j)][i];
      for (int t = 0; t < kTerms; ++t) {
        const int block_log = s.plain_block_logs[j][t];
        const u64 plain = plains[static_cast<std::size_t>(j)][static_cast<std::size_t>(t)][in_part >> block_log];
        expected = (expected + mul(terms[static_cast<std::size_t>(t)][i], plain, q)) % q;
      }
      mismatches += outs[static_cast<std::size_t>(j)][i] != expected;
    }
  }
  EXPECT_EQ(mismatches, 0u) << Outputs << " outputs, rows of " << small_bits << " and 60 bits";
}

TEST(PlainProductSumsEmulation, EveryTermSumsExactlyOverEveryPlaintextStorage) {
  check<1>(40, false, 1);
  check<4>(40, false, 2);
  check<3>(48, false, 3);
  check<8>(48, false, 4);
}

TEST(PlainProductSumsEmulation, LargestWordsSumExactly) {
  check<4>(40, true, 5);
  check<2>(48, true, 6);
}

}  // namespace
}  // namespace fhe
