// The sixteen presets of SPEC section 3: counts, prime properties, budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fhe/arith/primes.h"
#include "fhe/ckks/engine.h"
#include "fhe/core/error.h"
#include "fhe/params/preset.h"

namespace {

struct Expected {
  const char* name;
  int log_n, levels, q, p, dnum;
};

// SPEC section 3, verbatim.
constexpr Expected kTable[] = {
    {"slots8192-scale30-levels9-int64", 14, 9, 10, 1, 10},
    {"slots8192-scale40-levels7-int64", 14, 7, 8, 1, 8},
    {"slots8192-scale50-levels5-int64", 14, 5, 6, 1, 6},
    {"slots16384-scale30-levels21-int64", 15, 21, 22, 2, 12},
    {"slots16384-scale40-levels16-int64", 15, 16, 17, 2, 9},
    {"slots16384-scale50-levels12-int64", 15, 12, 13, 2, 7},
    {"slots32768-scale30-levels45-int64", 16, 45, 46, 4, 13},
    {"slots32768-scale40-levels34-int64", 16, 34, 35, 4, 10},
    {"slots32768-scale50-levels27-int64", 16, 27, 28, 4, 8},
    {"slots65536-scale30-levels95-int64", 17, 95, 96, 6, 17},
    {"slots65536-scale40-levels72-int64", 17, 72, 73, 6, 13},
    {"slots65536-scale50-levels58-int64", 17, 58, 59, 6, 11},
    {"slots8192-scale25-levels14-int32", 14, 14, 15, 1, 15},
    {"slots16384-scale25-levels29-int32", 15, 29, 30, 2, 16},
    {"slots32768-scale25-levels24-int32", 16, 24, 25, 4, 7},
    {"slots65536-scale25-levels14-int32", 17, 14, 15, 6, 4},
};

int bit_length(std::uint64_t x) { return 64 - __builtin_clzll(x); }

TEST(Presets, TableMatchesSpec) {
  int production = 0;
  for (const fhe::Preset& p : fhe::all_presets()) production += !p.test_only;
  EXPECT_EQ(production, 16);
  for (const Expected& e : kTable) {
    const fhe::Preset& p = fhe::preset_by_name(e.name);
    EXPECT_EQ(p.log_n, e.log_n) << e.name;
    EXPECT_EQ(p.levels, e.levels) << e.name;
    EXPECT_EQ(p.q_count(), e.q) << e.name;
    EXPECT_EQ(static_cast<int>(p.q_primes.size()), e.q) << e.name;
    EXPECT_EQ(static_cast<int>(p.p_primes.size()), e.p) << e.name;
    EXPECT_EQ(p.dnum(), e.dnum) << e.name;
    EXPECT_FALSE(p.test_only);
  }
}

TEST(Presets, EveryPrimeIsNttFriendlyDistinctAndOfItsWidth) {
  for (const fhe::Preset& p : fhe::all_presets()) {
    const std::uint64_t two_n = 2 * p.n();
    std::set<std::uint64_t> seen;
    const auto rows = p.qp_primes();
    for (std::size_t id = 0; id < rows.size(); ++id) {
      const std::uint64_t q = rows[id];
      EXPECT_TRUE(fhe::is_prime(q)) << p.name << " row " << id;
      EXPECT_EQ(q % two_n, 1u) << p.name << " row " << id;
      EXPECT_TRUE(seen.insert(q).second) << p.name << " repeats " << q;
      const bool scale_prime = id < static_cast<std::size_t>(p.levels);
      if (scale_prime) {
        // Balanced around 2^scale: within a factor of two either side.
        EXPECT_GE(bit_length(q), p.scale_bits) << p.name << " row " << id;
        EXPECT_LE(bit_length(q), p.scale_bits + 1) << p.name << " row " << id;
        if (p.word == fhe::WordType::int32) {
          EXPECT_GE(bit_length(q), 23);
          EXPECT_LE(bit_length(q), 28);
        }
      } else {
        EXPECT_EQ(bit_length(q), p.base_prime_bits()) << p.name << " row " << id;
      }
      EXPECT_LT(q, p.word == fhe::WordType::int64 ? (1ULL << 62) : (1ULL << 30));
    }
  }
}

TEST(Presets, WithinSecurityBudget) {
  for (const fhe::Preset& p : fhe::all_presets()) {
    if (p.test_only) continue;
    EXPECT_LE(p.log2_qp(), fhe::security_budget_bits(p.log_n)) << p.name;
  }
  EXPECT_EQ(fhe::security_budget_bits(16), 1747);
}

TEST(Presets, OverBudgetParametersAreRejected) {
  // 40 levels of 40 bits at logN 15 is far over 868 bits.
  try {
    fhe::make_preset("too-big", 15, 40, 40, 2, fhe::WordType::int64, false);
    FAIL() << "expected a budget error";
  } catch (const fhe::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("security budget"), std::string::npos) << e.what();
  }
}

TEST(Presets, HandMadePresetsAreValidated) {
  for (const fhe::Preset& preset : fhe::all_presets()) EXPECT_NO_THROW(fhe::validate_preset(preset)) << preset.name;
  const fhe::Preset good = fhe::preset_by_name("test-slots512-scale40-levels3-int64");
  fhe::Preset composite = good;
  composite.q_primes[0] = (std::uint64_t{1} << 40) + 1;  // = 1 mod 2N, divisible by 257
  EXPECT_THROW(fhe::validate_preset(composite), fhe::InvalidArgument);
  EXPECT_THROW(fhe::CkksEngine{composite}, fhe::InvalidArgument);  // it searched for a root for ever
  fhe::Preset repeated = good;
  repeated.q_primes[1] = repeated.q_primes[0];
  EXPECT_THROW(fhe::validate_preset(repeated), fhe::InvalidArgument);
  fhe::Preset short_of_primes = good;
  short_of_primes.q_primes.clear();
  EXPECT_THROW(fhe::validate_preset(short_of_primes), fhe::InvalidArgument);
  fhe::Preset not_ntt_friendly = good;
  not_ntt_friendly.p_primes[0] = 1000000007;  // prime, but not 1 mod 2N
  EXPECT_THROW(fhe::validate_preset(not_ntt_friendly), fhe::InvalidArgument);
  // A deployment preset with primes added past its logN's security budget
  // (and a small one marked for deployment) is refused as make_preset refuses it.
  fhe::Preset over_budget = fhe::preset_by_name("slots8192-scale40-levels7-int64");
  // Primes = 1 mod 4N: NTT-friendly at logN 14 too.
  const std::vector<std::uint64_t> more = fhe::preset_by_name("slots16384-scale40-levels16-int64").q_primes;
  for (std::uint64_t q : more) {
    if (std::find(over_budget.q_primes.begin(), over_budget.q_primes.end(), q) == over_budget.q_primes.end() &&
        std::find(over_budget.p_primes.begin(), over_budget.p_primes.end(), q) == over_budget.p_primes.end() &&
        over_budget.log2_qp() <= fhe::security_budget_bits(over_budget.log_n)) {
      over_budget.q_primes.insert(over_budget.q_primes.begin(), q);
      ++over_budget.levels;
    }
  }
  ASSERT_GT(over_budget.log2_qp(), fhe::security_budget_bits(over_budget.log_n));
  try {
    fhe::validate_preset(over_budget);
    ADD_FAILURE() << "an over-budget preset was accepted";
  } catch (const fhe::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("security budget"), std::string::npos) << e.what();
  }
  over_budget.test_only = true;
  EXPECT_NO_THROW(fhe::validate_preset(over_budget));
  fhe::Preset small_for_deployment = good;
  small_for_deployment.test_only = false;
  EXPECT_THROW(fhe::validate_preset(small_for_deployment), fhe::InvalidArgument);
}

TEST(Presets, UnknownNameListsKnownOnes) {
  try {
    fhe::preset_by_name("slots1-scale1");
    FAIL();
  } catch (const fhe::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(fhe::kDefaultPresetName), std::string::npos);
  }
}

TEST(Presets, LevelRowsAndHash) {
  const fhe::Preset& p = fhe::preset_by_name(fhe::kDefaultPresetName);
  EXPECT_EQ(p.active_q_rows(0), 35u);
  EXPECT_EQ(p.active_q_rows(34), 1u);
  EXPECT_THROW(p.active_q_rows(35), fhe::InvalidArgument);
  EXPECT_THROW(p.active_q_rows(-1), fhe::InvalidArgument);
  EXPECT_EQ(fhe::preset_primes_hash(p).size(), 16u);
  EXPECT_NE(fhe::preset_primes_hash(p),
            fhe::preset_primes_hash(fhe::preset_by_name("slots32768-scale50-levels27-int64")));
}

}  // namespace
