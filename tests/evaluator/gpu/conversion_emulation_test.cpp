// The basis conversion's thread body (evaluator/cuda/conversion_thread.cuh)
// run on the host, thread by thread and slice by slice over the staged
// device view of a CPU BasisConversion (conversion_slice.cuh), against
// BasisConversion::convert word for word.
// Covers both sums (the centred sums when every source is below 2^50, up
// to 4 sources, and the split sums otherwise, for narrow and wide
// targets), 1 to 8 sources, four sources just below 2^50 with 61-bit
// targets (the centred estimate's largest error), eight 61-bit sources
// (the split estimate's largest quotients), and the centred digits at
// their edges (y_i = 0, floor(q/2), floor(q/2) + 1, q - 1, the same edge
// in every source at once: the largest |X / p_t| of each sign),
// and that every preset's ModDown-and-rescale conversion fits the device
// view. Runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "evaluator/basis_conversion.h"
#include "evaluator/cuda/conversion_slice.cuh"
#include "evaluator/cuda/conversion_thread.cuh"
#include "evaluator/cuda/level_constants.h"
#include "evaluator/key_switch_schedule.h"
#include "evaluator/rns_scale_down.h"
#include "fhe/params/preset.h"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

constexpr int kLogN = 6;
constexpr int kTargetsPerSlice = 3;  // several slices, the last one partial

struct Case {
  std::vector<int> source_bits;
  std::vector<int> target_bits;
  bool centred_estimate;  // expected
};

// Distinct primes of the asked sizes, in the asked order.
std::vector<u64> primes_of(const std::vector<int>& bits, std::map<int, std::vector<u64>>& pool) {
  std::vector<u64> out;
  for (const int b : bits) {
    std::vector<u64>& left = pool.at(b);
    out.push_back(left.back());
    left.pop_back();
  }
  return out;
}

// Slice by slice as a block runs it: the slice's constants staged first
// (conversion_slice.cuh; one thread of one), then every thread of the
// slice's view. MaxSources: the instantiation of the ModUp's few-source
// kernel, or of the general one.
template <int MaxSources = cuda::kMaxConversionSources>
void convert_all(const cuda::DeviceConversion& c, const u64* source, u64* destination) {
  struct alignas(16) Staged {  // the kernel's shared words, as aligned
    u64 words[cuda::StagedSlice<kTargetsPerSlice, MaxSources>::kWords];
  };
  for (int first = 0; first < c.targets; first += kTargetsPerSlice) {
    Staged staged;
    const cuda::DeviceConversion slice =
        cuda::stage_slice<kTargetsPerSlice, MaxSources>(c, first, staged.words, 0, 1);
    for (std::size_t k = 0; k < (std::size_t{1} << kLogN) / cuda::kConversionCoefficients; ++k) {
      cuda::convert_coefficients<kTargetsPerSlice, MaxSources>(slice, source, destination, k, kLogN, 0);
    }
  }
}

void check(const Case& c) {
  SCOPED_TRACE(::testing::Message() << c.source_bits.size() << " sources of " << c.source_bits.front()
                                    << " bits first, " << c.target_bits.size() << " targets");
  std::map<int, std::vector<u64>> pool;
  for (const auto* list : {&c.source_bits, &c.target_bits}) {
    for (const int b : *list) pool[b];
  }
  for (auto& [b, primes] : pool) {
    std::size_t count = 0;
    for (const auto* list : {&c.source_bits, &c.target_bits}) count += std::count(list->begin(), list->end(), b);
    primes = testing::ntt_moduli(kLogN, static_cast<int>(count), b);
  }
  const std::vector<u64> sources = primes_of(c.source_bits, pool), targets = primes_of(c.target_bits, pool);
  std::vector<std::size_t> offsets(targets.size());
  for (std::size_t t = 0; t < offsets.size(); ++t) offsets[t] = offsets.size() - 1 - t;  // not in order
  const BasisConversion conversion = make_basis_conversion(sources, targets, offsets);

  const std::size_t n = std::size_t{1} << kLogN;
  std::mt19937_64 rng(77 + sources.size() * 5 + targets.size());
  std::vector<u64> source(sources.size() * n);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const u64 q = sources[i];
    // x = y [qhat_i]_(q_i) gives y_i = y: the centred digits' edges first.
    u64 qhat = 1;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      if (k != i) qhat = mul_mod_exact<u64>(qhat, sources[k] % q, q);
    }
    const u64 edges[] = {0, q / 2, q / 2 + 1, q - 1};
    for (std::size_t k = 0; k < n; ++k) {
      source[i * n + k] = k < 4 ? mul_mod_exact<u64>(edges[k], qhat, q) : rng() % q;
    }
  }
  std::vector<u64> expected(targets.size() * n), scratch(sources.size() * n);
  conversion.convert(source.data(), expected.data(), scratch.data(), n);

  std::vector<std::uint8_t> image;
  const cuda::DeviceConversion device = cuda::host_conversion_view(conversion, image);
  EXPECT_EQ(device.centred_estimate, c.centred_estimate);
  // The sums' constants, computed here again; each quotient within the
  // 3 * 2^-53 (relative) that the estimates' bounds assume.
  const auto expect_quotient = [](double got, u64 word, u64 p) {
    const long double quotient = static_cast<long double>(word) / static_cast<long double>(p);
    EXPECT_LE(std::fabs(static_cast<long double>(got) - quotient), 3 * 0x1p-53L * quotient);
  };
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const u64 p = targets[t];
    u64 q_source = 1;
    for (const u64 q : sources) q_source = mul_mod_exact<u64>(q_source, q % p, p);
    ASSERT_EQ(device.minus_q[t], (p - q_source) % p);
    expect_quotient(device.minus_q_quotient[t], device.minus_q[t], p);
    for (std::size_t i = 0; i < sources.size(); ++i) {
      u64 hat = 1;
      for (std::size_t k = 0; k < sources.size(); ++k) {
        if (k != i) hat = mul_mod_exact<u64>(hat, sources[k] % p, p);
      }
      const u64 high = mul_mod_exact<u64>(hat, (u64{1} << 32) % p, p);
      const std::size_t at = t * sources.size() + i;
      ASSERT_EQ(device.hat_plain[at], hat);
      ASSERT_EQ(device.split_hats[2 * at], hat);
      ASSERT_EQ(device.split_hats[2 * at + 1], high);
      expect_quotient(device.hat_quotient[at], hat, p);
      expect_quotient(device.split_quotients[2 * at], hat, p);
      expect_quotient(device.split_quotients[2 * at + 1], high, p);
    }
  }
  std::vector<u64> got(targets.size() * n, ~u64{0});
  convert_all(device, source.data(), got.data());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], expected[i]) << "target row " << i / n << ", coefficient " << i % n;
  }
  // The few-source instantiation (the default preset's ModUp): the same
  // words up to its bound, nothing written above it.
  std::vector<u64> few(targets.size() * n, ~u64{0});
  convert_all<4>(device, source.data(), few.data());
  if (sources.size() <= 4) {
    EXPECT_EQ(few, expected);
  } else {
    EXPECT_EQ(few, std::vector<u64>(targets.size() * n, ~u64{0}));
  }
}

TEST(ConversionEmulation, DoublePrecisionTargetsOfNarrowSources) {
  check({{40, 40, 40, 40}, {40, 40, 60, 40, 40, 60, 40}, true});
}

TEST(ConversionEmulation, SourcesAndTargetsAtTheDoublePrecisionBounds) {
  check({{50, 50, 50, 50}, {61, 61, 42, 61, 30}, true});
  check({{46, 46, 46, 46}, {61, 61, 42, 61, 30}, true});  // the close estimate's bound
  check({{50, 50}, {42, 42, 42, 61}, true});
  check({{50}, {42, 42}, true});
}

TEST(ConversionEmulation, AWideSourceTakesTheSplitSums) {
  check({{60, 40, 40, 40}, {40, 40, 60, 40, 61}, false});
  check({{51, 40}, {40, 42}, false});
  check({{61}, {40, 61, 30}, false});
}

// The ModDown's conversion: the P primes (near 2^60) to the Q rows.
TEST(ConversionEmulation, WideSourcesToNarrowAndWideTargets) {
  check({{60, 60, 60, 60}, {40, 40, 60, 40, 40, 40, 40}, false});
  check({{60, 60, 60, 60, 40}, {40, 60, 40}, false});  // with the rescale's prime (ModDown + rescale)
}

TEST(ConversionEmulation, EightSourcesAndOne) {
  check({{40, 40, 40, 40, 40, 40, 40, 40}, {40, 60, 40, 40}, false});  // more than the centred sums' 4
  check({{61, 61, 61, 61, 61, 61, 61, 61}, {61, 61, 40, 61}, false});  // the split estimate's largest |X / p_t|
  check({{30}, {30, 30, 60}, true});
}

// The quotient estimate's last step over the whole range its bound allows
// (-2p < r < 2p): the words above rarely leave [-p/2, p/2] (the estimate
// is within 1/2 of X / p_t unless sources are near 2^50), so the range's
// edges are asked here directly, for a narrow and the widest target.
TEST(ConversionEmulation, TheEstimateRemainderIsMadeCanonicalOverItsRange) {
  for (const u64 p : {testing::ntt_moduli(kLogN, 1, 40)[0], testing::ntt_moduli(kLogN, 1, 61)[0]}) {
    const auto signed_p = static_cast<std::int64_t>(p);
    for (const std::int64_t r : {-2 * signed_p + 1, -signed_p - 1, -signed_p, -signed_p + 1, std::int64_t{-1},
                                 std::int64_t{0}, signed_p - 1, signed_p, signed_p + 1, 2 * signed_p - 1}) {
      const std::int64_t expected = ((r % signed_p) + signed_p) % signed_p;
      EXPECT_EQ(cuda::canonical_of_signed(static_cast<u64>(r), p), static_cast<u64>(expected)) << p << " " << r;
    }
  }
}

// The rescale's one-source conversion as the kept rows' first forward pass
// applies it (ntt::gpu::centred_lift with the constants the evaluator
// uploads, make_centred_lift_row): the CPU conversion's words, for a
// dropped prime above, below and beside the kept ones, at the centred
// values' edges.
TEST(ConversionEmulation, TheRescaleLiftIsTheOneSourceConversion) {
  const std::pair<int, std::vector<int>> cases[] = {{40, {40, 60, 40}}, {50, {42, 61}}, {60, {40, 50}}, {30, {30, 28}}};
  for (const auto& [source_bits, target_bits] : cases) {
    std::map<int, std::vector<u64>> pool;
    pool[source_bits];
    for (const int b : target_bits) pool[b];
    for (auto& [b, primes] : pool) {
      const auto count = std::count(target_bits.begin(), target_bits.end(), b) + (b == source_bits ? 1 : 0);
      primes = testing::ntt_moduli(kLogN, static_cast<int>(count), b);
    }
    const std::vector<u64> sources = primes_of({source_bits}, pool), targets = primes_of(target_bits, pool);
    const u64 d = sources[0];
    std::vector<std::size_t> offsets(targets.size());
    for (std::size_t t = 0; t < offsets.size(); ++t) offsets[t] = t;
    const BasisConversion conversion = make_basis_conversion(sources, targets, offsets);

    const std::size_t n = std::size_t{1} << kLogN;
    std::mt19937_64 rng(source_bits);
    std::vector<u64> source(n);
    const u64 edges[] = {0, d / 2, d / 2 + 1, d - 1};
    for (std::size_t k = 0; k < n; ++k) source[k] = k < 4 ? edges[k] : rng() % d;
    std::vector<u64> expected(targets.size() * n), scratch(n);
    conversion.convert(source.data(), expected.data(), scratch.data(), n);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const ntt::gpu::CentredLiftRow row = ntt::gpu::make_centred_lift_row(d, targets[t]);
      for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(ntt::gpu::centred_lift(source[k], row, targets[t]), expected[t * n + k])
            << source_bits << "-bit D, target " << t << ", coefficient " << k;
      }
    }
  }
}

// The ModUp's lifted digits (cuda::mod_up_lift, what the evaluator uploads
// as LevelConstants::mod_up_lift): at the default preset's levels, the
// last digits of one active prime (the base prime's; at level 33 both,
// while level 31's first digit of one prime stays converted: it is not
// among the last), and for each of them the constants of every extended
// row turn the digit's row into its CPU conversion's words there.
TEST(ConversionEmulation, TheModUpsOnePrimeDigitsLiftToTheirConversion) {
  const Preset& preset = preset_by_name("slots32768-scale40-levels34-int64");
  const std::pair<int, int> levels[] = {{0, 1}, {17, 1}, {31, 1}, {33, 2}, {34, 1}};
  for (const auto& [level, lifted] : levels) {
    const KeySwitchSchedule schedule = make_key_switch_schedule(preset, level);
    const cuda::ModUpLift lift = cuda::mod_up_lift(schedule);
    ASSERT_EQ(lift.digits, lifted) << "level " << level;
    const std::size_t ext_rows = schedule.extended_rows.count;
    ASSERT_EQ(lift.rows.size(), static_cast<std::size_t>(lifted) * ext_rows);
    for (int l = 0; l < lifted; ++l) {
      const KeySwitchDigit& digit = schedule.digits[schedule.digits.size() - lifted + l];
      ASSERT_EQ(digit.q_rows.count, 1u);
      const BasisConversion& c = digit.mod_up;
      const u64 d = c.source_moduli[0].value;
      const std::size_t n = 64;
      std::mt19937_64 rng(level + l);
      std::vector<u64> source(n);
      const u64 edges[] = {0, d / 2, d / 2 + 1, d - 1};
      for (std::size_t k = 0; k < n; ++k) source[k] = k < 4 ? edges[k] : rng() % d;
      std::vector<u64> expected(ext_rows * n), scratch(n);
      c.convert(source.data(), expected.data(), scratch.data(), n);
      for (std::size_t t = 0; t < c.target_count(); ++t) {
        const std::size_t row = c.target_offsets[t];
        const ntt::gpu::CentredLiftRow& constants = lift.rows[l * ext_rows + row];
        for (std::size_t k = 0; k < n; ++k) {
          ASSERT_EQ(ntt::gpu::centred_lift(source[k], constants, c.target_moduli[t].value), expected[row * n + k])
              << "level " << level << ", lifted digit " << l << ", extended row " << row << ", coefficient " << k;
        }
      }
    }
  }
}

// A block stages the centred or the split sums' hats by centred_estimate,
// and a thread takes the centred sums only up to kMaxCentredSources sources:
// the flag must be off for every ModUp digit with more (the logN 17
// presets' digits of 6 primes below 2^50), or those would read the centred
// sums' hats as split ones; and on for the default preset's digits of
// 40-bit primes.
TEST(ConversionEmulation, EveryPresetsModUpDigitsTakeTheSumsTheirHatsAreStagedFor) {
  int wide_digits_of_narrow_primes = 0;
  for (const Preset& preset : all_presets()) {
    for (const KeySwitchDigit& digit : make_key_switch_schedule(preset, 0).digits) {
      std::vector<std::uint8_t> image;
      const cuda::DeviceConversion device = cuda::host_conversion_view(digit.mod_up, image);
      const bool narrow = std::all_of(digit.mod_up.source_moduli.begin(), digit.mod_up.source_moduli.end(),
                                      [](const auto& q) { return q.value < (u64{1} << 41); });
      if (device.sources > cuda::kMaxCentredSources) {
        EXPECT_FALSE(device.centred_estimate) << preset.name;
        wide_digits_of_narrow_primes += narrow ? 1 : 0;
      } else if (narrow) {
        EXPECT_TRUE(device.centred_estimate) << preset.name;
      }
    }
  }
  EXPECT_GT(wide_digits_of_narrow_primes, 0);  // the case above is asked
}

// Every preset's ModDown-and-rescale divides by |P| + 1 primes at once:
// the device view (what upload_level_constants builds for each level)
// must take that many sources, or the CUDA evaluator could not be built.
TEST(ConversionEmulation, EveryPresetsModDownRescaleFitsTheDeviceConversion) {
  for (const Preset& preset : all_presets()) {
    for (const int level : {0, preset.levels - 1}) {
      const RnsScaleDown fused = make_mod_down_rescale(preset, level);
      EXPECT_EQ(fused.dropped_count(), preset.p_primes.size() + 1) << preset.name;
      std::vector<std::uint8_t> image;
      const cuda::DeviceConversion device = cuda::host_conversion_view(fused.dropped_to_kept, image);
      EXPECT_EQ(device.sources, static_cast<int>(preset.p_primes.size()) + 1) << preset.name;
      EXPECT_EQ(device.targets, static_cast<int>(preset.q_primes.size()) - level - 1) << preset.name;
    }
  }
}

}  // namespace
}  // namespace fhe
