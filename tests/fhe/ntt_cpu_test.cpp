// CPU NTT backends: the oracle against the O(N^2) definition, every backend
// bit-exact against the oracle at logN 10-17, roundtrips, both word types.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "fhe/arith/modarith.h"
#include "fhe/core/error.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "fhe/ntt/twiddles.h"
#include "fhe/ntt/verify.h"
#include "ntt_test_util.h"

namespace {

using u64 = std::uint64_t;
using fhe::ntt::RowRange;

// A[k] = sum_n a[n] psi^((2 br(k) + 1) n) mod q, straight from the definition.
std::vector<u64> naive_negacyclic_ntt(const std::vector<u64>& a, u64 q, int log_n) {
  const std::size_t n = a.size();
  const u64 psi = fhe::primitive_root_of_unity(2 * n, q);
  std::vector<u64> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    const u64 exponent = 2 * fhe::ntt::bit_reverse(static_cast<std::uint32_t>(k), log_n) + 1;
    const u64 step = fhe::pow_mod<u64>(psi, exponent, q);
    u64 power = 1, sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      sum = fhe::add_mod<u64>(sum, fhe::mul_mod_exact<u64>(a[j], power, q), q);
      power = fhe::mul_mod_exact<u64>(power, step, q);
    }
    out[k] = sum;
  }
  return out;
}

TEST(NttCpu, OracleMatchesDefinition) {
  for (int bits : {60, 28}) {
    const int log_n = 10;
    const auto moduli = fhe::testing::ntt_moduli(log_n, 2, bits);
    const auto word = bits == 60 ? fhe::WordType::int64 : fhe::WordType::int32;
    auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, word);
    auto data = fhe::ntt::random_rows(*oracle, oracle->all_rows(), 5);
    const auto input = data;
    oracle->forward(data.data(), oracle->all_rows());
    for (std::size_t r = 0; r < moduli.size(); ++r) {
      std::vector<u64> row(input.begin() + r * oracle->n(), input.begin() + (r + 1) * oracle->n());
      auto expected = naive_negacyclic_ntt(row, moduli[r], log_n);
      ASSERT_TRUE(std::equal(expected.begin(), expected.end(), data.begin() + r * oracle->n()))
          << "bits " << bits << " row " << r;
    }
  }
}

// Every compatible backend equals the oracle word for word, both directions,
// at every logN 10-17, for 60-bit and 28-bit primes.
TEST(NttCpu, EveryBackendBitExactAtEveryLogN) {
  int checked = 0;
  for (int log_n = 10; log_n <= 17; ++log_n) {
    for (int bits : {60, 28}) {
      const auto word = bits == 60 ? fhe::WordType::int64 : fhe::WordType::int32;
      const int rows = log_n >= 16 ? 1 : 2;
      const auto moduli = fhe::testing::ntt_moduli(log_n, rows, bits);
      auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, word);
      const auto input = fhe::ntt::random_rows(*oracle, oracle->all_rows(), 100 + log_n);
      for (const auto& backend : fhe::ntt::all_backends()) {
        if (!fhe::ntt::compatibility(backend, log_n).compatible) continue;
        auto plan = fhe::ntt::make_plan(backend.name, {}, log_n, moduli, word);
        auto result = fhe::ntt::verify_against_oracle(*plan, *oracle, input, plan->all_rows());
        EXPECT_TRUE(result.forward_exact) << backend.name << " logN " << log_n << " bits " << bits
                                          << ": " << result.mismatched_words << " words differ";
        EXPECT_TRUE(result.inverse_exact) << backend.name << " logN " << log_n;
        EXPECT_TRUE(result.roundtrip_exact) << backend.name << " logN " << log_n;
        ++checked;
      }
    }
  }
  // Per word type: 4 radix-2 backends x 8 sizes, radix4 at 10/12/14/16,
  // radix8 at 12/15, radix16 at 12/16.
  EXPECT_EQ(checked, 2 * (32 + 4 + 2 + 2));
}

// Inputs at q-1 everywhere push the lazy butterflies to their bounds.
TEST(NttCpu, ExtremeInputsStayExact) {
  const int log_n = 12;
  const auto moduli = fhe::testing::ntt_moduli(log_n, 1, 60);
  auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, fhe::WordType::int64);
  std::vector<u64> input(oracle->n(), moduli[0] - 1);
  for (const auto& backend : fhe::ntt::all_backends()) {
    if (!fhe::ntt::compatibility(backend, log_n).compatible) continue;
    auto plan = fhe::ntt::make_plan(backend.name, {}, log_n, moduli, fhe::WordType::int64);
    EXPECT_TRUE(fhe::ntt::verify_against_oracle(*plan, *oracle, input, plan->all_rows()).passed())
        << backend.name;
  }
  // The transform of the constant polynomial c is c in every slot.
  std::vector<u64> constant(oracle->n(), 0);
  constant[0] = 12345;
  oracle->forward(constant.data(), oracle->all_rows());
  for (u64 word : constant) ASSERT_EQ(word, 12345u);
}

// 61-bit primes are the widest a plan takes (the CUDA butterflies let values
// reach 8q); a 62-bit prime is refused with the bound in the message.
TEST(NttCpu, ModulusWidthIsBoundedByTheLazyRange) {
  const int log_n = 10;
  EXPECT_NO_THROW(fhe::ntt::make_plan("radix2_indexed", {}, log_n, fhe::testing::ntt_moduli(log_n, 1, 61),
                                      fhe::WordType::int64));
  try {
    fhe::ntt::make_plan("radix2_indexed", {}, log_n, fhe::testing::ntt_moduli(log_n, 1, 62), fhe::WordType::int64);
    ADD_FAILURE() << "a 62-bit modulus was accepted";
  } catch (const fhe::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("2^61"), std::string::npos) << e.what();
  }
}

// A row range transforms exactly those rows with their own moduli.
TEST(NttCpu, RowRangesUseTheirOwnModuli) {
  const int log_n = 11;
  const auto moduli = fhe::testing::ntt_moduli(log_n, 4, 60);
  auto full = fhe::ntt::make_plan("radix2_compact_group4_smem8", {}, log_n, moduli,
                                  fhe::WordType::int64);
  auto all = fhe::ntt::random_rows(*full, full->all_rows(), 9);
  std::vector<u64> tail(all.begin() + 2 * full->n(), all.end());
  full->forward(all.data(), full->all_rows());
  full->forward(tail.data(), RowRange{2, 2});
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), all.begin() + 2 * full->n()));
  EXPECT_THROW(full->forward(tail.data(), RowRange{3, 2}), fhe::InvalidArgument);
}

}  // namespace
