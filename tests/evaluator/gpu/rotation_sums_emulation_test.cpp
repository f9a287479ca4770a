// rotation_sums.cuh on the host: every thread of rotation_sums_kernel over
// Q rows of 40-bit primes and P rows of 60-bit ones, a full launch of terms
// (rotations and step 0, the kernels' own rotation_term), one to four sums
// with plaintexts of every storage and null ones (times 1), started and
// carried-in sums, against each term times its plaintext summed in plain
// modular arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "evaluator/cuda/rotation_sums.cuh"
#include "fhe/ckks/galois.h"
#include "tests/evaluator/gpu/extended_sum_fixture.h"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

u64 mul(u64 x, u64 y, u64 q) { return static_cast<u64>(static_cast<unsigned __int128>(x) * y % q); }

constexpr int kLogN = 6, kQRows = 3, kPRows = 2;
constexpr std::size_t kDigits = 3, kFirstRow = testing::ExtendedSumFixture::kFirstRow;

// Q rows of 40-bit primes, P rows of 60-bit ones.
testing::ExtendedSumFixture make_inputs(std::uint64_t seed) {
  std::vector<u64> moduli = testing::ntt_moduli(kLogN, static_cast<int>(kFirstRow) + kQRows, 40);
  for (u64 q : testing::ntt_moduli(kLogN, kPRows, 60)) moduli.push_back(q);
  return testing::ExtendedSumFixture(std::move(moduli), kLogN, kQRows, kDigits, seed);
}

// `terms` terms (every fifth step 0, the others rotations by 1, 2, ...) into
// Sums sums; sum j carried in when j is odd; plaintext (j, t) one word a
// block of 2^((j + t) % 4) words, null where (j + t) % 7 == 3.
template <int Sums>
void check(int terms, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << Sums << " sums, " << terms << " terms");
  testing::ExtendedSumFixture in = make_inputs(seed);
  const std::size_t n = in.n, part = in.rows * n;
  std::vector<std::vector<std::uint8_t>> keys(static_cast<std::size_t>(terms));
  std::vector<std::vector<std::uint32_t>> tables(static_cast<std::size_t>(terms));
  std::vector<std::vector<u64>> plain_words;
  cuda::RotationSums list;
  list.term_count = terms;
  list.sum_count = Sums;
  for (int t = 0; t < terms; ++t) {
    const auto i = static_cast<std::size_t>(t);
    if (t % 5 != 0) {
      keys[i] = in.random_key().second;
      tables[i] = galois_ntt_permutation(galois_element_for_step(t, kLogN), kLogN);
      list.terms[t] = {keys[i].data(), tables[i].data(), nullptr, 0};
    }
  }
  plain_words.reserve(static_cast<std::size_t>(Sums * terms));
  for (int j = 0; j < Sums; ++j) {
    for (int t = 0; t < terms; ++t) {
      if ((j + t) % 7 == 3) continue;
      const int block_log = (j + t) % 4;
      std::vector<u64> plain(part >> block_log);
      for (std::size_t w = 0; w < plain.size(); ++w) plain[w] = in.random_row_word(kFirstRow + ((w << block_log) / n));
      plain_words.push_back(std::move(plain));
      list.plains[j][t] = plain_words.back().data();
      list.plain_block_logs[j][t] = static_cast<std::uint8_t>(block_log);
    }
  }
  std::vector<std::vector<u64>> sums_b(Sums, std::vector<u64>(part)), sums_a(Sums, std::vector<u64>(part));
  for (int j = 0; j < Sums; ++j) {
    list.accumulate[j] = j % 2 == 1;
    for (std::size_t w = 0; w < part; ++w) {
      sums_b[j][w] = in.random_row_word(kFirstRow + w / n);
      sums_a[j][w] = in.random_row_word(kFirstRow + w / n);
    }
    list.sums_b[j] = sums_b[j].data();
    list.sums_a[j] = sums_a[j].data();
  }
  const std::vector<std::vector<u64>> carried_b = sums_b, carried_a = sums_a;

  const cuda::ExtendedSumArgs s = in.sum_args();
  for (std::size_t y = 0; y < in.rows; ++y) {  // the kernel's launch rows: a row left out fails
    const std::size_t r = cuda::terms::wide_rows_first(y, s.rows, s.q_rows);
    for (std::size_t k = 0; k < n; ++k) {
      unsigned __int128 slots[2 * Sums];
      cuda::terms::rotation_sums_at<Sums>(list, s, r, k, slots, 1);
    }
  }

  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < in.rows; ++r) {
    const u64 q = in.moduli[kFirstRow + r];
    const cuda::terms::TermRow row = cuda::terms::term_row(s, r);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t w = r * n + k;
      for (int j = 0; j < Sums; ++j) {
        u64 want_b = list.accumulate[j] ? carried_b[j][w] : 0, want_a = list.accumulate[j] ? carried_a[j][w] : 0;
        for (int t = 0; t < terms; ++t) {
          u64 b, a;
          cuda::terms::rotation_term<5, true, true, 2, cuda::terms::NarrowSums::split>(
              list.terms[t], s, row, r, k, cuda::terms::ExtendedDigits<>{s.extended, s.rows, n, r}, b, a);
          const u64* plain = list.plains[j][t];
          const u64 p = plain ? plain[w >> list.plain_block_logs[j][t]] : 1;
          want_b = (want_b + mul(b, p, q)) % q;
          want_a = (want_a + mul(a, p, q)) % q;
        }
        mismatches += (sums_b[j][w] != want_b) + (sums_a[j][w] != want_a);
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(RotationSumsEmulation, EveryTermTimesItsPlaintextInEverySum) {
  check<1>(1, 1);
  check<2>(7, 2);
  check<3>(cuda::kMaxRotationSumTerms, 3);
  check<4>(cuda::kMaxRotationSumTerms, 4);
  static_assert(cuda::kMaxRotationSums == 5);
  check<cuda::kMaxRotationSums>(cuda::kMaxRotationSumTerms, 5);
}

// The launch's rows: the P rows, then the Q rows from the base prime.
TEST(RotationSumsEmulation, WideRowsFirst) {
  std::vector<std::size_t> order;
  for (std::size_t y = 0; y < 39; ++y) order.push_back(cuda::terms::wide_rows_first(y, 39, 35));
  std::vector<std::size_t> want = {35, 36, 37, 38};
  for (std::size_t r = 0; r < 35; ++r) want.push_back(r);
  EXPECT_EQ(order, want);
  for (std::size_t y = 0; y < 6; ++y) EXPECT_EQ(cuda::terms::wide_rows_first(y, 6, 6), y);  // no P rows
}

}  // namespace
}  // namespace fhe
