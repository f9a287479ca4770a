// The device sampling kernels' thread bodies (evaluator/cuda/sampling_words.h)
// run on the host: group by group and row by row they give the words of the
// host Sampler and of set_small_coefficients, for both word types' presets.
// Needs no GPU (and no CUDA build), so CI checks the kernels' sampling logic.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "evaluator/cuda/sampling_words.h"
#include "fhe/ckks/poly_arith.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/sampler.h"
#include "fhe/params/preset.h"

namespace fhe {
namespace {

using cuda::kCoefficientsPerGroup;
using cuda::SmallDistribution;

constexpr std::uint64_t kSeed = 2024;

// What sample_small_kernel writes into row `id`: every group's block, its
// four values as words mod that row's prime.
std::vector<std::uint64_t> small_row_as_kernel(std::uint64_t stream, SmallDistribution distribution,
                                               std::size_t n, std::uint64_t q) {
  std::vector<std::uint64_t> row(n);
  for (std::size_t group = 0; group < n / kCoefficientsPerGroup; ++group) {
    int values[kCoefficientsPerGroup];
    cuda::small_group(kSeed, stream, distribution, static_cast<std::uint32_t>(group), values);
    for (int c = 0; c < kCoefficientsPerGroup; ++c) {
      row[group * kCoefficientsPerGroup + c] = small_coefficient_word(values[c], q);
    }
  }
  return row;
}

class SamplingWords : public ::testing::TestWithParam<std::string> {};

TEST_P(SamplingWords, SmallGroupsEqualTheHostSampler) {
  const Preset preset = preset_by_name(GetParam());
  const RnsBasis basis(preset);
  const Sampler sampler(kSeed);
  const std::size_t n = preset.n();
  const ntt::RowRange rows{2, preset.q_primes.size() - 2};  // a deeper level: row ids from 2
  struct Case {
    std::uint64_t stream;
    SmallDistribution distribution;
  };
  const Case cases[] = {{make_stream_id(RandomPurpose::encrypt_u, 5, 0), SmallDistribution::ternary},
                        {make_stream_id(RandomPurpose::encrypt_e, 5, 0), SmallDistribution::gaussian},
                        {make_stream_id(RandomPurpose::encrypt_e, 5, 1), SmallDistribution::gaussian},
                        {make_stream_id(RandomPurpose::symmetric_e, 6, 0), SmallDistribution::gaussian}};
  for (const Case& c : cases) {
    const std::vector<std::int8_t> host = c.distribution == SmallDistribution::ternary
                                              ? sampler.ternary(c.stream, n)
                                              : sampler.gaussian(c.stream, n);
    std::set<int> seen;
    for (std::size_t group = 0; group < n / kCoefficientsPerGroup; ++group) {
      int values[kCoefficientsPerGroup];
      cuda::small_group(kSeed, c.stream, c.distribution, static_cast<std::uint32_t>(group), values);
      for (int k = 0; k < kCoefficientsPerGroup; ++k) {
        ASSERT_EQ(values[k], host[group * kCoefficientsPerGroup + k]) << "stream " << c.stream << " group " << group;
        seen.insert(values[k]);
      }
    }
    // Not a constant stream: ternary hits all of -1, 0, 1; Gaussian more.
    EXPECT_GE(seen.size(), c.distribution == SmallDistribution::ternary ? 3u : 9u);

    RnsPoly expected(rows.first, rows.count, n, false);
    set_small_coefficients(expected, host, basis);
    for (std::size_t id = rows.first; id < rows.first + rows.count; ++id) {
      const std::vector<std::uint64_t> row = small_row_as_kernel(c.stream, c.distribution, n, basis.prime(id));
      EXPECT_TRUE(std::equal(row.begin(), row.end(), expected.row(id))) << "row " << id << " of " << preset.name;
    }
  }
}

TEST_P(SamplingWords, UniformGroupsEqualTheHostSampler) {
  const Preset preset = preset_by_name(GetParam());
  const RnsBasis basis(preset);
  const Sampler sampler(kSeed);
  const std::size_t n = preset.n();
  const std::uint64_t stream = make_stream_id(RandomPurpose::symmetric_a, 9, 0);
  for (const std::size_t first : {std::size_t{0}, std::size_t{3}}) {
    RnsPoly expected(first, preset.q_primes.size() - first, n, true);
    sampler.fill_uniform(expected, stream, basis);
    for (std::size_t id = first; id < expected.end_row(); ++id) {
      std::size_t at_top = 0;  // words above q/2: the words span the row's range
      for (std::size_t group = 0; group < n / kCoefficientsPerGroup; ++group) {
        std::uint64_t words[kCoefficientsPerGroup];
        cuda::uniform_group(kSeed, stream, static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(group),
                            basis.modulus(id), words);
        for (int k = 0; k < kCoefficientsPerGroup; ++k) {
          ASSERT_EQ(words[k], expected.row(id)[group * kCoefficientsPerGroup + k])
              << preset.name << " row " << id << " group " << group;
          ASSERT_LT(words[k], basis.prime(id));
          at_top += words[k] > basis.prime(id) / 2;
        }
      }
      EXPECT_GT(at_top, n / 4) << "row " << id;
      EXPECT_LT(at_top, 3 * n / 4) << "row " << id;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothWordTypes, SamplingWords,
                         ::testing::Values("test-slots2048-scale40-levels6-int64",
                                           "test-slots2048-scale25-levels4-int32"),
                         [](const auto& info) { return info.param.substr(info.param.rfind('-') + 1); });

TEST(SamplingWords, SmallCoefficientWordIsTheSignedValueModQ) {
  const std::uint64_t q = 0xffffffffffc0001ULL;  // any odd modulus above 19
  EXPECT_EQ(small_coefficient_word(0, q), 0u);
  EXPECT_EQ(small_coefficient_word(1, q), 1u);
  EXPECT_EQ(small_coefficient_word(19, q), 19u);
  EXPECT_EQ(small_coefficient_word(-1, q), q - 1);
  EXPECT_EQ(small_coefficient_word(-19, 97), 78u);
}

}  // namespace
}  // namespace fhe
