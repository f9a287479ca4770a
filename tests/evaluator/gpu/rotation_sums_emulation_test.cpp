// rotation_sums.cuh on the host: every thread of rotation_sums_kernel over
// Q rows of 40-bit primes and P rows of 60-bit ones, a full launch of terms
// (rotations and step 0, the kernels' own rotation_term), one to four sums
// with plaintexts of every storage and null ones (times 1), started and
// carried-in sums, against each term times its plaintext summed in plain
// modular arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "evaluator/cuda/rotation_sums.cuh"
#include "fhe/ckks/galois.h"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

u64 mul(u64 x, u64 y, u64 q) { return static_cast<u64>(static_cast<unsigned __int128>(x) * y % q); }

constexpr int kLogN = 6, kDigits = 3, kFirstDigit = 1, kQRows = 3, kPRows = 2;
constexpr std::size_t kFirstRow = 1;  // row ids from 1: the offsets are exercised

struct Inputs {
  explicit Inputs(std::uint64_t seed) : rng(seed) {
    moduli = testing::ntt_moduli(kLogN, 1 + kQRows, 40);
    for (u64 q : testing::ntt_moduli(kLogN, kPRows, 60)) moduli.push_back(q);
    ext.resize(kDigits * rows * n);
    for (std::size_t i = 0; i < ext.size(); ++i) ext[i] = word(kFirstRow + (i / n) % rows);
    for (auto* part : {&c0, &c1}) {
      part->resize(kQRows * n);
      for (std::size_t i = 0; i < part->size(); ++i) (*part)[i] = word(kFirstRow + i / n);
    }
    for (std::size_t id = 0; id < moduli.size(); ++id) {
      p_mod_q.push_back(word(id));
      p_shoup.push_back(shoup_companion<u64>(p_mod_q.back(), moduli[id]));
      device_moduli.emplace_back(moduli[id]);
    }
    layout = switch_key_layout(moduli, n);
  }

  u64 word(std::size_t id) { return rng() % moduli[id]; }

  // A random key of kFirstDigit + kDigits components in the device layout.
  std::vector<std::uint8_t> random_key() {
    const std::size_t key_rows = moduli.size(), components = kFirstDigit + kDigits;
    std::vector<u64> key(components * 2 * key_rows * n);
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = word((i / n) % key_rows);
    std::vector<std::uint8_t> packed(components * layout.digit_bytes());
    for (std::size_t d = 0; d < components; ++d) {
      pack_switch_key_digit(std::span(key).subspan(2 * d * key_rows * n, key_rows * n),
                            std::span(key).subspan((2 * d + 1) * key_rows * n, key_rows * n), layout,
                            std::span(packed).subspan(d * layout.digit_bytes(), layout.digit_bytes()));
    }
    return packed;
  }

  cuda::ExtendedSumArgs args() const {
    cuda::ExtendedSumArgs s;
    s.extended = ext.data();
    s.digits = kDigits;
    s.first_digit = kFirstDigit;
    s.key_layout = layout;
    s.c0 = c0.data();
    s.c1 = c1.data();
    s.p_mod_q = p_mod_q.data();
    s.p_mod_q_shoup = p_shoup.data();
    s.first_row = kFirstRow;
    s.q_rows = kQRows;
    s.rows = rows;
    s.log_n = kLogN;
    s.moduli = device_moduli.data();
    return s;
  }

  std::size_t n = std::size_t{1} << kLogN, rows = kQRows + kPRows;
  std::mt19937_64 rng;
  std::vector<u64> moduli, ext, c0, c1, p_mod_q, p_shoup;
  std::vector<cuda::DeviceModulus> device_moduli;
  SwitchKeyLayout layout;
};

// `terms` terms (every fifth step 0, the others rotations by 1, 2, ...) into
// Sums sums; sum j carried in when j is odd; plaintext (j, t) one word a
// block of 2^((j + t) % 4) words, null where (j + t) % 7 == 3.
template <int Sums>
void check(int terms, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << Sums << " sums, " << terms << " terms");
  Inputs in(seed);
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
      keys[i] = in.random_key();
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
      for (std::size_t w = 0; w < plain.size(); ++w) plain[w] = in.word(kFirstRow + ((w << block_log) / n));
      plain_words.push_back(std::move(plain));
      list.plains[j][t] = plain_words.back().data();
      list.plain_block_logs[j][t] = static_cast<std::uint8_t>(block_log);
    }
  }
  std::vector<std::vector<u64>> sums_b(Sums, std::vector<u64>(part)), sums_a(Sums, std::vector<u64>(part));
  for (int j = 0; j < Sums; ++j) {
    list.accumulate[j] = j % 2 == 1;
    for (std::size_t w = 0; w < part; ++w) {
      sums_b[j][w] = in.word(kFirstRow + w / n);
      sums_a[j][w] = in.word(kFirstRow + w / n);
    }
    list.sums_b[j] = sums_b[j].data();
    list.sums_a[j] = sums_a[j].data();
  }
  const std::vector<std::vector<u64>> carried_b = sums_b, carried_a = sums_a;

  const cuda::ExtendedSumArgs s = in.args();
  for (std::size_t r = 0; r < in.rows; ++r) {
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
              list.terms[t], s, row, r, k, cuda::terms::ExtendedDigits{s.extended, s.rows, n, r}, b, a);
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
}

}  // namespace
}  // namespace fhe
