// The ModUp's conversion fused with the first forward pass
// (evaluator/cuda/conversion_pass.cuh) run on the host, thread by thread
// and slice by slice over the device views of CPU BasisConversions, against
// the conversion's own thread body followed by the NTT's first pass (the
// kernel emulator), word for word on every target row. The digits' own rows
// are skipped by both. Covers first passes of 1 to 4 stages (the compact
// groups and the strict radix digits), 64- and 32-bit words, the
// double-precision sums with narrow and wide targets, the integer sums of
// wide sources, 5 sources, digits of unequal widths and a level above 0.
// Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "evaluator/basis_conversion.h"
#include "evaluator/cuda/conversion_pass.cuh"
#include "evaluator/cuda/level_constants.h"
#include "fhe/ntt/registry.h"
#include "tests/fhe/gpu/kernel_emulator.h"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

struct Case {
  const char* backend;
  int log_n;
  int q_bits, q_rows;  // Q primes (all of them: level 0 is row 0)
  int p_bits, p_rows;
  int digit_rows;  // the last digit may be narrower
  int level;       // first active Q row
  int targets_per_slice;
};

template <typename Word, int G>
void run_fused(const cuda::ConversionPassArgs<Word>& f, int digits, int max_sources, int max_targets) {
  std::vector<u64> lifts(cuda::conversion_pass_slots<G>(max_sources));
  std::mt19937_64 garbage(3);
  const int slices = (max_targets + f.targets_per_slice - 1) / f.targets_per_slice;
  for (int d = 0; d < digits; ++d) {
    for (int s = 0; s < slices; ++s) {
      for (std::uint32_t item = 0; item < cuda::conversion_pass_items_per_row<G>(f.pass.log_n); ++item) {
        for (u64& w : lifts) w = garbage();  // shared memory starts as garbage
        cuda::conversion_pass_thread<Word, G>(f, static_cast<std::uint32_t>(d), static_cast<std::uint32_t>(s), item,
                                              lifts.data(), 1);
      }
    }
  }
}

template <typename Word>
void check(const Case& c) {
  SCOPED_TRACE(::testing::Message() << c.backend << " logN " << c.log_n << ", Q " << c.q_rows << " x " << c.q_bits
                                    << " bits, P " << c.p_rows << " x " << c.p_bits << ", digits of "
                                    << c.digit_rows << ", level " << c.level);
  const ntt::BackendInfo& backend = ntt::backend_info(c.backend);
  ASSERT_TRUE(ntt::compatibility(backend, c.log_n).compatible);
  const std::size_t n = std::size_t{1} << c.log_n;
  std::vector<u64> moduli = testing::ntt_moduli(c.log_n, c.q_rows, c.q_bits);
  for (const u64 p : testing::ntt_moduli(c.log_n, c.p_rows, c.p_bits)) moduli.push_back(p);
  const int rows = c.q_rows - c.level, ext_rows = rows + c.p_rows;

  // The level's digits: active Q rows in runs of digit_rows, each converted
  // to every other extended row (offsets: rows of the extended block).
  std::vector<BasisConversion> conversions;
  std::vector<std::uint32_t> own_row_starts{0};
  int max_sources = 0, max_targets = 0;
  for (int first = 0; first < rows; first += c.digit_rows) {
    const int width = std::min(c.digit_rows, rows - first);
    std::vector<u64> sources, targets;
    std::vector<std::size_t> offsets;
    for (int r = 0; r < ext_rows; ++r) {
      const u64 q = moduli[static_cast<std::size_t>(c.level + r)];
      if (r >= first && r < first + width) {
        sources.push_back(q);
      } else {
        targets.push_back(q);
        offsets.push_back(static_cast<std::size_t>(r));
      }
    }
    conversions.push_back(make_basis_conversion(sources, targets, offsets));
    own_row_starts.push_back(static_cast<std::uint32_t>(first + width));
    max_sources = std::max(max_sources, width);
    max_targets = std::max(max_targets, static_cast<int>(targets.size()));
  }
  const int digits = static_cast<int>(conversions.size());
  std::vector<std::vector<std::uint8_t>> images(conversions.size());
  std::vector<cuda::DeviceConversion> views;
  for (int d = 0; d < digits; ++d) {
    views.push_back(cuda::host_conversion_view(conversions[d], images[d]));
    views.back().source_offset_rows = static_cast<int>(own_row_starts[d]);
  }

  std::mt19937_64 rng(900 + c.log_n * 7 + c.q_bits + c.digit_rows);
  std::vector<u64> source(static_cast<std::size_t>(rows) * n);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = rng() % moduli[c.level + i / n];
  const std::size_t ext_words = static_cast<std::size_t>(digits) * ext_rows * n;
  std::vector<u64> expected(ext_words), got(ext_words);
  for (std::size_t i = 0; i < ext_words; ++i) expected[i] = got[i] = rng();  // garbage

  // The reference: the conversion kernel's thread body, then the first pass.
  constexpr int kSlice = 5;
  for (int d = 0; d < digits; ++d) {
    for (int first = 0; first < views[d].targets; first += kSlice) {
      for (std::size_t k = 0; k < n / cuda::kConversionCoefficients; ++k) {
        cuda::convert_coefficients<kSlice>(views[d], source.data(), expected.data() + d * ext_rows * n, k, c.log_n,
                                           first);
      }
    }
  }
  testing::KernelEmulator<Word> emulator(backend, c.log_n, moduli, 132);
  const ntt::RowRange ext_range{static_cast<std::size_t>(c.level), static_cast<std::size_t>(ext_rows)};
  const auto batch = static_cast<std::size_t>(digits);
  emulator.run(expected, ext_range, true, batch, 1, own_row_starts.data());

  const cuda::ConversionPassArgs<Word> f{emulator.forward_pass_args(got, ext_range, batch, 0, own_row_starts.data()),
                                         views.data(), source.data(), c.targets_per_slice};
  ASSERT_EQ(f.pass.first_stage, 0u);
  switch (f.pass.stage_count) {
    case 1: run_fused<Word, 1>(f, digits, max_sources, max_targets); break;
    case 2: run_fused<Word, 2>(f, digits, max_sources, max_targets); break;
    case 3: run_fused<Word, 3>(f, digits, max_sources, max_targets); break;
    case 4: run_fused<Word, 4>(f, digits, max_sources, max_targets); break;
    default: FAIL() << "a first pass of " << f.pass.stage_count << " stages";
  }

  for (int d = 0; d < digits; ++d) {
    for (int r = 0; r < ext_rows; ++r) {
      if (r >= static_cast<int>(own_row_starts[d]) && r < static_cast<int>(own_row_starts[d + 1])) continue;
      const std::size_t at = (static_cast<std::size_t>(d) * ext_rows + r) * n;
      for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(got[at + k], expected[at + k]) << "digit " << d << ", extended row " << r << ", word " << k;
      }
    }
  }
}

TEST(ConversionPassEmulation, CompactGroupsWithNarrowAndWideTargets) {
  check<u64>({"radix2_compact_group16_smem8", 12, 40, 5, 60, 2, 2, 0, 9});  // 4 stages, one offset a thread
  check<u64>({"radix2_compact_group8_smem8", 12, 40, 6, 60, 2, 4, 1, 4});   // 3 stages, digits of 4 and 1
  check<u64>({"radix2_compact_group4_smem8", 11, 40, 4, 60, 1, 3, 0, 2});   // 2 stages
}

TEST(ConversionPassEmulation, StrictRadixDigits) {
  check<u64>({"radix16_compact", 12, 40, 5, 60, 2, 2, 0, 3});
  check<u64>({"radix8_compact", 12, 40, 6, 60, 2, 5, 0, 9});  // 5 sources: the integer sums
  check<u64>({"radix4_compact", 12, 40, 4, 60, 2, 2, 1, 9});
}

TEST(ConversionPassEmulation, WideSourcesKeepTheIntegerSums) {
  check<u64>({"radix2_compact_group16_smem8", 12, 60, 4, 60, 2, 2, 0, 9});
}

TEST(ConversionPassEmulation, ThirtyTwoBitWords) {
  check<std::uint32_t>({"radix2_compact_group16_smem8", 12, 30, 5, 30, 2, 2, 0, 9});
  check<std::uint32_t>({"radix2_compact_group8_smem8", 12, 30, 4, 30, 2, 3, 1, 4});
  check<std::uint32_t>({"radix4_compact", 10, 28, 3, 30, 1, 2, 0, 9});
}

}  // namespace
}  // namespace fhe
