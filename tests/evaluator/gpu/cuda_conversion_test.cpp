// The ModUp conversion kernels themselves (launch_conversion over the
// constants upload_level_constants builds) against BasisConversion::convert,
// digit by digit at level 0, for digits the key-switch word tests do not
// reach: the logN 17 presets' six primes below 2^50 (the general kernel and
// the split sums, whose staged hats must be the split ones) and the default
// preset's four (the few-source kernel: the centred sums, and the split sums
// on the digit with the base prime).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/cuda/level_constants.h"
#include "evaluator/key_switch_schedule.h"
#include "fhe/cuda/device_buffer.h"
#include "tests/evaluator/gpu/gpu_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

constexpr u64 kNotWritten = ~u64{0};

void check_level0_digits(const char* preset_name, int expected_digit_rows) {
  SCOPED_TRACE(preset_name);
  const Preset& preset = preset_by_name(preset_name);
  const KeySwitchSchedule schedule = make_key_switch_schedule(preset, 0);
  const cuda::LevelConstants constants = cuda::upload_level_constants(preset, schedule);
  ASSERT_EQ(constants.max_digit_rows, expected_digit_rows);
  const std::size_t n = std::size_t{1} << preset.log_n;
  const std::size_t first_row = schedule.active_q_rows.first, q_rows = schedule.active_q_rows.count;

  std::mt19937_64 rng(31);
  std::vector<u64> input(q_rows * n);
  for (std::size_t r = 0; r < q_rows; ++r) {
    const u64 q = preset.q_primes[first_row + r];
    for (std::size_t k = 0; k < n; ++k) input[r * n + k] = k < 2 ? (k == 0 ? 0 : q - 1) : rng() % q;
  }
  const auto device_input = cuda::DeviceBuffer<u64>::from_host(input);

  for (std::size_t d = 0; d < schedule.digits.size(); ++d) {
    const BasisConversion& c = schedule.digits[d].mod_up;
    const std::size_t rows = *std::max_element(c.target_offsets.begin(), c.target_offsets.end()) + 1;
    const std::size_t source_row = schedule.digits[d].q_rows.first - first_row;
    std::vector<u64> expected(rows * n), scratch(c.source_count() * n);
    c.convert(input.data() + source_row * n, expected.data(), scratch.data(), n);

    // Every word starts as a sentinel no conversion yields (above every
    // prime), so the rows that are not targets (the digit's own) must keep it.
    const std::vector<u64> sentinels(rows * n, kNotWritten);
    auto device_out = cuda::DeviceBuffer<u64>::from_host(sentinels);
    cuda::launch_conversion(constants.mod_up + d, 1, device_input.data(), 0, device_out.data(), 0, 1,
                            static_cast<int>(c.target_count()), static_cast<int>(c.source_count()), preset.log_n,
                            nullptr);
    const std::vector<u64> got = device_out.download();  // ordered after the launch on the same stream
    std::vector<bool> target(rows, false);
    for (std::size_t t = 0; t < c.target_count(); ++t) target[c.target_offsets[t]] = true;
    for (std::size_t row = 0; row < rows; ++row) {
      for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(got[row * n + k], target[row] ? expected[row * n + k] : kNotWritten)
            << "digit " << d << ", row " << row << (target[row] ? " (a target)" : " (not a target)") << ", k " << k;
      }
    }
  }
}

TEST(CudaConversion, ModUpDigitsOfSixNarrowPrimesMatchTheCpu) {
  FHE_SKIP_WITHOUT_GPU();
  check_level0_digits("slots65536-scale40-levels72-int64", 6);
}

TEST(CudaConversion, ModUpDigitsOfTheDefaultPresetMatchTheCpu) {
  FHE_SKIP_WITHOUT_GPU();
  check_level0_digits("slots32768-scale40-levels34-int64", 4);
}

}  // namespace
}  // namespace fhe
