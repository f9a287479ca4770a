// The CUDA NTT kernels' thread bodies, run on the host by KernelEmulator:
// every backend bit-exact against the radix2_indexed CPU oracle at logN
// 8-13, forward and inverse, 64-bit (the presets' 40- and 60-bit primes
// side by side, and 61-bit primes) and 32-bit arithmetic, with a row
// offset and with the launch shapes of a large device (with its split
// kernels, which these small launches take, and without) and of a one-SM
// device (the latter on a batch of three blocks of the same plan rows).
// Runs without a GPU, so CI checks the kernels' logic; also the index
// arithmetic they share (FastDivisor, consecutive twiddle groups) and the
// launch shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <string>
#include <random>
#include <utility>

#include "fhe/ntt/cuda/fp64_arith.cuh"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "kernel_emulator.h"
#include "../ntt_test_util.h"

namespace {

using fhe::ntt::RowRange;

// Plan rows 1 and 2 of `moduli` (three primes) forward and back.
template <typename Word>
void check_backend(const fhe::ntt::BackendInfo& backend, int log_n, const std::vector<std::uint64_t>& moduli,
                   int sm_count, bool split, int* checked, std::size_t* fused) {
  const auto word = sizeof(Word) == 8 ? fhe::WordType::int64 : fhe::WordType::int32;
  const int bits = std::bit_width(moduli[2]);
  auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, word);
  const RowRange rows{1, 2};  // plan rows 1 and 2: exercises first_row
  // The one-SM shape also runs a batch of three blocks (forward_batch).
  const std::size_t batch = sm_count == 1 ? 3 : 1;
  std::vector<std::uint64_t> input;
  for (std::size_t b = 0; b < batch; ++b) {
    const auto block = fhe::ntt::random_rows(*oracle, rows, 7 + log_n + b + bits);
    input.insert(input.end(), block.begin(), block.end());
  }
  std::vector<std::uint64_t> expected = input;
  for (std::size_t b = 0; b < batch; ++b) oracle->forward(expected.data() + b * 2 * oracle->n(), rows);

  fhe::testing::KernelEmulator<Word> emulator(backend, log_n, moduli, sm_count, split);
  std::vector<std::uint64_t> actual = input;
  emulator.run(actual, rows, true, batch);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) mismatches += actual[i] != expected[i];
  EXPECT_EQ(mismatches, 0u) << backend.name << " forward, logN " << log_n << ", " << bits
                            << "-bit, sm " << sm_count << ", split " << split << ", batch " << batch;
  emulator.run(expected, rows, false, batch);
  EXPECT_TRUE(expected == input) << backend.name << " inverse, logN " << log_n << ", " << bits
                                 << "-bit, sm " << sm_count << ", split " << split << ", batch " << batch;
  ++*checked;
  *fused += emulator.fused_launches();
}

TEST(NttKernelEmulation, EveryBackendMatchesOracle) {
  using fhe::testing::ntt_moduli;
  int checked = 0;
  std::size_t fused = 0;  // pass-region launches among them (the one-SM batches at logN 11-13)
  for (int log_n = 8; log_n <= 13; ++log_n) {
    // 61 bits: the widest modulus, where the forward range 8q nears 2^64.
    // The presets' rows: a 60-bit (base or P) prime beside a 40-bit (scale) one.
    auto preset_rows = ntt_moduli(log_n, 2, 60);
    preset_rows.push_back(ntt_moduli(log_n, 1, 40)[0]);
    const std::vector<std::uint64_t> moduli64[] = {ntt_moduli(log_n, 3, log_n % 2 ? 61 : 60), preset_rows};
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, log_n).compatible) continue;
      for (const auto [sm_count, split] : {std::pair{132, true}, std::pair{132, false}, std::pair{1, true}}) {
        for (const auto& moduli : moduli64) {
          check_backend<std::uint64_t>(backend, log_n, moduli, sm_count, split, &checked, &fused);
        }
        check_backend<std::uint32_t>(backend, log_n, ntt_moduli(log_n, 3, 28), sm_count, split, &checked, &fused);
      }
    }
  }
  // 4 radix-2 backends x 6 sizes, radix4 at 8/10/12, radix8 at 9/12, radix16
  // at 8/12; each with 3 shapes, 2 sets of 64-bit primes and 32-bit primes.
  EXPECT_EQ(checked, (4 * 6 + 3 + 2 + 2) * 3 * 3);
  EXPECT_GT(fused, 0u);
}

// A batched forward with rows to skip (the ModUp's digits' own rows): every
// other row is the oracle's transform, and every pass leaves the skipped
// rows as they were (on the GPU those rows may hold words never written,
// which no pass may read: compute-sanitizer initcheck). At logN 12 a
// region block's tiles lie inside one row; at logN 9, on one SM, a block
// of four tiles spans two rows and skips only its tiles in skipped rows.
TEST(NttKernelEmulation, BatchedForwardSkipsTheGivenRows) {
  int checked = 0;
  for (const int log_n : {9, 12}) {
    const auto moduli = fhe::testing::ntt_moduli(log_n, 6, 60);
    auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, fhe::WordType::int64);
    const RowRange rows{1, 5};
    const std::size_t batch = 3, n = oracle->n();
    // Block b skips rows [starts[b], starts[b + 1]): 0-1, 2-3, 4 (the digits).
    const std::vector<std::uint32_t> starts = {0, 2, 4, 5};
    std::vector<std::uint64_t> input;
    for (std::size_t b = 0; b < batch; ++b) {
      const auto block = fhe::ntt::random_rows(*oracle, rows, 40 + b + log_n);
      input.insert(input.end(), block.begin(), block.end());
    }
    std::vector<std::uint64_t> expected = input;
    for (std::size_t b = 0; b < batch; ++b) oracle->forward(expected.data() + b * rows.count * n, rows);
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, log_n).compatible) continue;
      for (int sm_count : {132, 1}) {
        fhe::testing::KernelEmulator<std::uint64_t> emulator(backend, log_n, moduli, sm_count);
        std::vector<std::uint64_t> actual = input;
        emulator.run(actual, rows, true, batch, SIZE_MAX, starts.data());
        std::size_t wrong_kept = 0, wrong_skipped = 0;
        for (std::size_t i = 0; i < actual.size(); ++i) {
          const std::size_t block = i / (rows.count * n), row = i / n % rows.count;
          const bool skipped = row >= starts[block] && row < starts[block + 1];
          (skipped ? wrong_skipped : wrong_kept) += actual[i] != (skipped ? input[i] : expected[i]);
        }
        EXPECT_EQ(wrong_kept, 0u) << backend.name << ", logN " << log_n << ", sm " << sm_count;
        EXPECT_EQ(wrong_skipped, 0u) << backend.name << ", logN " << log_n << ", sm " << sm_count;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, (5 + 7) * 2);  // the radix-2 backends and radix8 at logN 9, every backend at 12
}

// The inverse run out of place (ntt::inverse_batch_out_of_place: its
// first launch, the shared region, reads `source`): the in-place inverse's
// words in `data`, whatever `data` held, and `source` untouched; with the
// split region kernels (few rows on a large device) and without, 64- and
// 32-bit words, a batch of two blocks, read from a source of data's layout
// and from blocks three rows apart (a strip of rows of each ciphertext part).
TEST(NttKernelEmulation, InverseOutOfPlaceMatchesInPlace) {
  using fhe::testing::ntt_moduli;
  int checked = 0;
  for (int log_n : {10, 12}) {
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, log_n).compatible || backend.name == "radix2_indexed") continue;
      for (const bool wide : {true, false}) {
        const auto moduli = wide ? ntt_moduli(log_n, 3, 60) : ntt_moduli(log_n, 3, 28);
        auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli,
                                          wide ? fhe::WordType::int64 : fhe::WordType::int32);
        const RowRange rows{1, 2};
        const std::size_t batch = 2;
        std::vector<std::uint64_t> source;
        for (std::size_t b = 0; b < batch; ++b) {
          const auto block = fhe::ntt::random_rows(*oracle, rows, 60 + log_n + b);
          source.insert(source.end(), block.begin(), block.end());
        }
        // The same blocks one row into blocks of rows.count + 3 rows of garbage.
        const std::size_t n = std::size_t{1} << log_n, block_words = rows.count * n, stride = block_words + 3 * n;
        std::mt19937_64 garbage(5);
        std::vector<std::uint64_t> strided(batch * stride);
        for (auto& w : strided) w = garbage();
        for (std::size_t b = 0; b < batch; ++b) {
          std::copy_n(source.begin() + b * block_words, block_words, strided.begin() + b * stride + n);
        }
        const std::vector<std::uint64_t> kept = source, kept_strided = strided;
        for (const int sm_count : {132, 1}) {
          const auto run = [&](std::vector<std::uint64_t>& data, const std::uint64_t* from, std::size_t from_stride) {
            if (wide) {
              fhe::testing::KernelEmulator<std::uint64_t>(backend, log_n, moduli, sm_count)
                  .run(data, rows, false, batch, SIZE_MAX, nullptr, from, nullptr, from_stride);
            } else {
              fhe::testing::KernelEmulator<std::uint32_t>(backend, log_n, moduli, sm_count)
                  .run(data, rows, false, batch, SIZE_MAX, nullptr, from, nullptr, from_stride);
            }
          };
          std::vector<std::uint64_t> expected = source;
          run(expected, nullptr, 0);
          for (const bool strip : {false, true}) {
            std::vector<std::uint64_t> actual(source.size());
            for (auto& w : actual) w = garbage();
            run(actual, strip ? strided.data() + n : source.data(), strip ? stride : 0);
            EXPECT_TRUE(actual == expected) << backend.name << ", logN " << log_n << ", wide " << wide << ", sm "
                                            << sm_count << ", strip " << strip;
            ++checked;
          }
          EXPECT_TRUE(source == kept && strided == kept_strided) << backend.name << ": the source was written";
        }
      }
    }
  }
  // logN 10: 4 backends with a region (radix4 too); logN 12: 6 (radix8,
  // radix16 too); each 64- and 32-bit on two devices, two source layouts.
  EXPECT_EQ(checked, (4 + 6) * 2 * 2 * 2);
}

// A forward transform whose first pass lifts its input (PassArgs::lift, the
// rescale's conversion of the dropped row, the ModUp's one-prime digits):
// the oracle's transform of the centred lifts, computed here in signed
// arithmetic, whatever `data` held. D above some targets and below others,
// the centred values' edges, 40- and 60-bit rows side by side
// (double-precision and integer butterflies) and 32-bit words, split
// kernels and not, a batch of two blocks lifted three ways: both from one D
// (the rescale's), each from its own D (a ModUp's last digits of one prime
// each), and only the second, the first block transforming its `data` (a
// ModUp's converted digits before its lifted one); on one SM the lifted
// first pass pairs with the next (logN 12 and 16).
TEST(NttKernelEmulation, LiftedForwardMatchesTheTransformOfTheLifts) {
  using fhe::testing::ntt_moduli;
  enum class Lift { one_d, a_d_a_block, second_block_only };
  int checked = 0, checked_before_region = 0;
  std::size_t paired = 0, grouped = 0;
  for (int log_n : {10, 12, 16}) {
    const std::size_t n = std::size_t{1} << log_n;
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, log_n).compatible || backend.name == "radix2_indexed") continue;
      for (const bool wide : {true, false}) {
        std::vector<std::uint64_t> moduli = wide ? ntt_moduli(log_n, 2, 40) : ntt_moduli(log_n, 3, 28);
        if (wide) moduli.push_back(ntt_moduli(log_n, 1, 60)[0]);
        // Block 1's own D (a ModUp's base prime) lies above every target.
        const std::uint64_t ds[] = {ntt_moduli(log_n, 1, wide ? 50 : 30)[0], ntt_moduli(log_n, 2, wide ? 60 : 31)[1]};
        const auto word = wide ? fhe::WordType::int64 : fhe::WordType::int32;
        auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, word);
        const RowRange rows{0, 3};
        const std::size_t batch = 2;
        for (const Lift mode : {Lift::one_d, Lift::a_d_a_block, Lift::second_block_only}) {
          const std::uint32_t first_block = mode == Lift::second_block_only ? 1 : 0;
          const std::size_t lifted_blocks = batch - first_block;
          std::uint64_t block_d[batch];
          for (std::size_t b = 0; b < batch; ++b) block_d[b] = mode == Lift::one_d ? ds[0] : ds[b];
          std::mt19937_64 rng(90 + log_n);
          std::vector<std::uint64_t> source(lifted_blocks * n);
          for (std::size_t k = 0; k < source.size(); ++k) {
            const std::uint64_t d = block_d[first_block + k / n];
            const std::uint64_t edges[] = {0, d / 2, d / 2 + 1, d - 1};
            source[k] = k % n < 4 ? edges[k % n] : rng() % d;
          }
          std::vector<fhe::ntt::gpu::CentredLiftRow> constants;
          for (std::size_t b = first_block; b < (mode == Lift::one_d ? 1 : batch); ++b) {
            for (const std::uint64_t q : moduli) constants.push_back(fhe::ntt::gpu::make_centred_lift_row(block_d[b], q));
          }
          const fhe::ntt::gpu::CentredLift lift{source.data(), constants.data(), first_block,
                                                mode == Lift::one_d ? 0u : static_cast<std::uint32_t>(rows.count)};
          // An unlifted block transforms its data: words below each prime.
          const std::vector<std::uint64_t> unlifted = fhe::ntt::random_rows(*oracle, rows, 70 + log_n);
          std::vector<std::uint64_t> expected(batch * rows.count * n);
          for (std::size_t b = 0; b < batch; ++b) {
            for (std::size_t r = 0; r < rows.count; ++r) {
              const auto q = static_cast<__int128>(moduli[r]);
              const auto d = static_cast<__int128>(block_d[b]);
              for (std::size_t k = 0; k < n; ++k) {
                std::uint64_t& word = expected[(b * rows.count + r) * n + k];
                if (b < first_block) {
                  word = unlifted[r * n + k];
                  continue;
                }
                const __int128 x = source[(b - first_block) * n + k];
                const __int128 centred = x > d / 2 ? x - d : x;
                word = static_cast<std::uint64_t>(((centred % q) + q) % q);
              }
            }
          }
          std::vector<std::uint64_t> input = expected;  // the unlifted block's data
          for (std::size_t b = 0; b < batch; ++b) oracle->forward(expected.data() + b * rows.count * n, rows);
          for (const int sm_count : {132, 1}) {
            std::mt19937_64 garbage(6);
            std::vector<std::uint64_t> actual = input;
            for (std::size_t k = first_block * rows.count * n; k < actual.size(); ++k) actual[k] = garbage();
            if (wide) {
              fhe::testing::KernelEmulator<std::uint64_t> emulator(backend, log_n, moduli, sm_count);
              emulator.run(actual, rows, true, batch, SIZE_MAX, nullptr, nullptr, &lift);
              paired += emulator.paired_launches();
            } else {
              fhe::testing::KernelEmulator<std::uint32_t> emulator(backend, log_n, moduli, sm_count);
              emulator.run(actual, rows, true, batch, SIZE_MAX, nullptr, nullptr, &lift);
              paired += emulator.paired_launches();
            }
            EXPECT_TRUE(actual == expected) << backend.name << ", logN " << log_n << ", wide " << wide << ", sm "
                                            << sm_count << ", lift mode " << static_cast<int>(mode);
            ++checked;
          }
          // The passes before a caller's region (the ModUp's key product),
          // on one SM: at logN 16 group8's three passes and group4's and
          // radix4's four lift in one pass-group launch.
          if (log_n == 16) {
            std::vector<std::uint64_t> actual = input;
            for (std::size_t k = first_block * rows.count * n; k < actual.size(); ++k) actual[k] = 1;
            if (wide) {
              fhe::testing::KernelEmulator<std::uint64_t> emulator(backend, log_n, moduli, 1);
              const auto region = emulator.forward_before_region(actual, rows, batch, nullptr, nullptr, &lift);
              emulator.forward_region_then(region, fhe::ntt::gpu::copy_tiles<std::uint64_t, true>);
              for (int shape = 0; shape < fhe::ntt::gpu::kPassGroupShapeCount; ++shape) {
                grouped += emulator.grouped_launches(shape);
              }
            } else {
              fhe::testing::KernelEmulator<std::uint32_t> emulator(backend, log_n, moduli, 1);
              const auto region = emulator.forward_before_region(actual, rows, batch, nullptr, nullptr, &lift);
              emulator.forward_region_then(region, fhe::ntt::gpu::copy_tiles<std::uint32_t, true>);
              for (int shape = 0; shape < fhe::ntt::gpu::kPassGroupShapeCount; ++shape) {
                grouped += emulator.grouped_launches(shape);
              }
            }
            EXPECT_TRUE(actual == expected) << backend.name << ", wide " << wide << ", before the region, lift mode "
                                            << static_cast<int>(mode);
            ++checked_before_region;
          }
        }
      }
    }
  }
  // As for the out-of-place inverse: every backend whose forward starts
  // with a global pass, 4 at logN 10, 6 at logN 12 and 5 at logN 16; three
  // lifts each.
  EXPECT_EQ(checked, (4 + 6 + 5) * 2 * 2 * 3);
  // On one SM the lifted first pass pairs with the next, 64- and 32-bit: at
  // logN 16 for each of the five (the 8 stages before the region: group4's
  // and radix4's G = 2 pair, then a pass alone and one with the region;
  // group8's G = 3 pair, then one with the region; group16's and radix16's
  // G = 4 pair), at logN 12 radix8's (G = 3 twice before its 6-stage
  // region; the others' region takes the second of two 2-stage passes or
  // they have one pass); three lifts each.
  EXPECT_EQ(paired, (5u + 1u) * 2u * 3u);
  // Before the region at logN 16: five backends, 64- and 32-bit, three
  // lifts; three of them (group8, group4, radix4) in a pass group.
  EXPECT_EQ(checked_before_region, 5 * 2 * 3);
  EXPECT_EQ(grouped, 3u * 2u * 3u);
}

// The pass-pair kernel word for word (one SM: a wave from 3 blocks) at
// logN 14-17: group4's (G = 2), group8's and radix8's (G = 3), group16's and
// radix16's (G = 4) passes in every transform, and every backend's passes before the region
// when its caller runs the region (the ModUp's key product, run here by
// the plan's region kernel afterwards; at logN 16 group8's three passes
// and group4's and radix4's four as one pass-group kernel), with rows to
// skip (block 0 skips its row 0, block 1 its rows 1-2: they keep their
// words), on the presets' 60- and 40-bit rows (integer and double-precision
// butterflies) and on 32-bit rows. Returns the pair and group launches run,
// and of those the constant-log-N kernels' (constant_pass_shape).
struct GroupedLaunches {
  std::size_t paired = 0, grouped[fhe::ntt::gpu::kPassGroupShapeCount] = {};
  std::size_t constant = 0;
};

template <typename Word>
GroupedLaunches check_pass_pairs(const fhe::ntt::BackendInfo& backend, int log_n,
                             const std::vector<std::uint64_t>& moduli) {
  const auto word = sizeof(Word) == 8 ? fhe::WordType::int64 : fhe::WordType::int32;
  auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, word);
  const RowRange rows{0, 3};
  const std::size_t batch = 2, n = oracle->n();
  std::vector<std::uint64_t> input;
  for (std::size_t b = 0; b < batch; ++b) {
    const auto block = fhe::ntt::random_rows(*oracle, rows, 300 + log_n + b);
    input.insert(input.end(), block.begin(), block.end());
  }
  std::vector<std::uint64_t> expected = input;
  for (std::size_t b = 0; b < batch; ++b) oracle->forward(expected.data() + b * rows.count * n, rows);
  const std::string where = std::string(backend.name) + ", logN " + std::to_string(log_n) + ", " +
                            std::to_string(8 * sizeof(Word)) + "-bit words";

  fhe::testing::KernelEmulator<Word> emulator(backend, log_n, moduli, 1);
  std::vector<std::uint64_t> actual = input;
  emulator.run(actual, rows, true, batch);
  EXPECT_TRUE(actual == expected) << where << ": forward";
  emulator.run(actual, rows, false, batch);
  EXPECT_TRUE(actual == input) << where << ": inverse";

  const std::vector<std::uint32_t> starts = {0, 1, 3};
  actual = input;
  const auto region = emulator.forward_before_region(actual, rows, batch, starts.data());
  emulator.forward_region_then(region, fhe::ntt::gpu::copy_tiles<Word, true>);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const std::size_t block = i / (rows.count * n), row = i / n % rows.count;
    const bool skipped = row >= starts[block] && row < starts[block + 1];
    wrong += actual[i] != (skipped ? input[i] : expected[i]);
  }
  EXPECT_EQ(wrong, 0u) << where << ": forward before the region, skipping rows";
  GroupedLaunches launches{emulator.paired_launches()};
  for (int shape = 0; shape < fhe::ntt::gpu::kPassGroupShapeCount; ++shape) {
    launches.grouped[shape] = emulator.grouped_launches(shape);
  }
  launches.constant = emulator.constant_log_n_launches();
  return launches;
}

TEST(NttKernelEmulation, PassPairsMatchTheOracle) {
  using fhe::testing::ntt_moduli;
  std::map<std::string, std::size_t> paired;
  std::map<std::string, std::vector<std::size_t>> grouped;
  for (const int log_n : {14, 15, 16, 17}) {
    std::vector<std::uint64_t> wide = ntt_moduli(log_n, 2, 60);
    wide.push_back(ntt_moduli(log_n, 1, 40)[0]);
    for (const char* name : {"radix2_compact_group4_smem8", "radix2_compact_group8_smem8",
                             "radix2_compact_group16_smem8", "radix4_compact", "radix8_compact",
                             "radix16_compact"}) {
      const auto& backend = fhe::ntt::backend_info(name);
      if (!fhe::ntt::compatibility(backend, log_n).compatible) continue;
      for (const GroupedLaunches g : {check_pass_pairs<std::uint64_t>(backend, log_n, wide),
                                      check_pass_pairs<std::uint32_t>(backend, log_n, ntt_moduli(log_n, 3, 28))}) {
        paired[name] += g.paired;
        grouped[name].resize(fhe::ntt::gpu::kPassGroupShapeCount);
        std::size_t launches = g.paired;
        for (int shape = 0; shape < fhe::ntt::gpu::kPassGroupShapeCount; ++shape) {
          grouped[name][shape] += g.grouped[shape];
          launches += g.grouped[shape];
        }
        // At logN 16 the pairs and groups whose lower pass is stage 0 take
        // the constant-log-N kernels: all of them but group4's and radix4's
        // inverse pair (stages 5 to 2, between the region's pass and the
        // pass of stages 1 and 0); at other sizes none.
        const bool two_stage = std::string(name) == "radix2_compact_group4_smem8" ||
                               std::string(name) == "radix4_compact";
        EXPECT_EQ(g.constant, log_n == 16 ? launches - (two_stage ? 1 : 0) : 0) << name << ", logN " << log_n;
        if (log_n == 16) EXPECT_GE(launches, 3u) << name;
      }
    }
  }
  // Both word types, each, as (forward + inverse) + before the region:
  // group4 and radix4 at 14 (passes of 2, 2, 2 stages, region) 2 + 1, at 16
  // (2, 2, 2, 2) 2 + 0 and the four before the region as one group; group4
  // at 15 (2, 2, 2, 1) 2 + 1, at 17 (2, 2, 2, 2, 1) 4 + 2; group8 at 14 (3,
  // 3) 0 + 1, at 15 (3, 3, 1) and 17 (3, 3, 3) 2 + 1, at 16 (3, 3, 2) 2 + 0
  // and the three before the region as one group; radix8 at 15 (3, 3, 3,
  // 6-stage region) 2 + 1; group16 at 14 (4, 2) and 15 (4, 3) none, at 16
  // (4, 4) and 17 (4, 4, 1) 2 + 1; radix16 at 16 2 + 1.
  EXPECT_EQ(paired["radix2_compact_group4_smem8"], 2u * (3 + 3 + 2 + 6));
  EXPECT_EQ(paired["radix4_compact"], 2u * (3 + 2));
  EXPECT_EQ(paired["radix2_compact_group8_smem8"], 2u * (1 + 3 + 2 + 3));
  EXPECT_EQ(paired["radix8_compact"], 2u * 3);
  EXPECT_EQ(paired["radix2_compact_group16_smem8"], 2u * (3 + 3));
  EXPECT_EQ(paired["radix16_compact"], 2u * 3);
  const std::vector<std::size_t> three_passes = {2, 0}, four_passes = {0, 2}, none = {0, 0};
  for (const auto& [name, counts] : grouped) {
    const bool four = name == "radix2_compact_group4_smem8" || name == "radix4_compact";
    EXPECT_EQ(counts, name == "radix2_compact_group8_smem8" ? three_passes : four ? four_passes : none) << name;
  }
}

// The double-precision rows' bounds (fp64_arith.cuh) where they are
// tightest: logN 17 (the most passes, each adding its store bias), a
// prime just below 2^42 beside a 60-bit one, and inputs at the top of the
// lazy ranges the integer kernels accept (forward below 8q, inverse below
// 4q), which callers such as the ModUp may pass.
TEST(NttKernelEmulation, Fp64RowsTakeLazyInputsAtLogN17) {
  const int log_n = 17;
  const std::vector<std::uint64_t> moduli = {fhe::testing::ntt_moduli(log_n, 1, 42)[0],
                                             fhe::testing::ntt_moduli(log_n, 1, 60)[0]};
  ASSERT_TRUE(fhe::ntt::gpu::fp64_modulus(moduli[0]) && !fhe::ntt::gpu::fp64_modulus(moduli[1]));
  auto oracle = fhe::ntt::make_plan("radix2_indexed", {}, log_n, moduli, fhe::WordType::int64);
  const RowRange rows{0, 2};
  const std::size_t n = oracle->n();
  const auto canonical = fhe::ntt::random_rows(*oracle, rows, 17);
  std::vector<std::uint64_t> transformed = canonical;
  oracle->forward(transformed.data(), rows);
  // The same residues lifted by k q, k < bound, the largest k for a third of the words.
  std::mt19937_64 random(5);
  const auto lifted = [&](const std::vector<std::uint64_t>& words, std::uint64_t bound) {
    std::vector<std::uint64_t> out = words;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::uint64_t k = i % 3 == 0 ? bound - 1 : random() % bound;
      out[i] += k * moduli[i / n];
    }
    return out;
  };
  for (const char* name :
       {"radix2_compact_group4_smem8", "radix2_compact_group8_smem8", "radix2_compact_group16_smem8"}) {
    fhe::testing::KernelEmulator<std::uint64_t> emulator(fhe::ntt::backend_info(name), log_n, moduli, 132, false);
    std::vector<std::uint64_t> forward = lifted(canonical, 8);
    emulator.run(forward, rows, true);
    EXPECT_TRUE(forward == transformed) << name << " forward";
    std::vector<std::uint64_t> inverse = lifted(transformed, 4);
    emulator.run(inverse, rows, false);
    EXPECT_TRUE(inverse == canonical) << name << " inverse";
  }
}

TEST(NttKernelEmulation, InverseIsScaledAtStageZeroOnly) {
  // logN 8: the shared region is the whole transform and carries N^-1.
  const auto& backend = fhe::ntt::backend_info("radix16_compact");
  const auto moduli = fhe::testing::ntt_moduli(8, 1, 60);
  fhe::testing::KernelEmulator<std::uint64_t> emulator(backend, 8, moduli, 132);
  std::vector<std::uint64_t> data(256, 0);
  data[0] = 5;  // forward of a constant is the constant everywhere
  emulator.run(data, {0, 1}, true);
  for (std::uint64_t w : data) ASSERT_EQ(w, 5u);
  emulator.run(data, {0, 1}, false);
  EXPECT_EQ(data[0], 5u);
  for (std::size_t i = 1; i < data.size(); ++i) ASSERT_EQ(data[i], 0u) << i;
}

// The default preset's 39 rows fill more than 2 blocks per SM of an H200
// (132 SMs): throughput kernels for every pass; one row or a one-row level
// does not: latency kernels.
TEST(NttLaunchShape, ManyRowsGetTheThroughputKernelsOneRowTheLatencyKernels) {
  for (const char* name : {"radix2_compact_group16_smem8", "radix2_compact_group8_smem8", "radix4_compact"}) {
    const auto& backend = fhe::ntt::backend_info(name);
    const auto schedule = fhe::ntt::make_schedule(backend, 16);
    for (const auto& launch : fhe::ntt::gpu::make_pass_launches(backend, schedule, true)) {
      EXPECT_TRUE(fhe::ntt::gpu::launch_shape(launch, 16, 39, 132, 8).throughput) << name;
      EXPECT_FALSE(fhe::ntt::gpu::launch_shape(launch, 16, 1, 132, 8).throughput) << name;
      EXPECT_FALSE(fhe::ntt::gpu::launch_shape(launch, 16, 5, 132, 8).throughput) << name;
    }
  }
}

// Below two warps per scheduler (8 an SM) a launch takes the split
// kernels: one row at logN 16 on an H200 (2048-4096 threads of 16 words)
// does, with twice the threads (a region tile of 32), and so do the 8 rows
// of a ModDown's P rows in 64-bit words in the region and the 4-stage
// passes (4096 threads a row, 32768 in all); 17
// rows (at least 34816 threads in every pass) do not, nor do launches
// whose caller keeps the 16-thread tiles.
TEST(NttLaunchShape, LaunchesWithFewWarpsAnSmAreSplit) {
  for (const char* name : {"radix2_compact_group16_smem8", "radix2_compact_group8_smem8", "radix16_compact"}) {
    const auto& backend = fhe::ntt::backend_info(name);
    const auto schedule = fhe::ntt::make_schedule(backend, 16);
    for (const auto& launch : fhe::ntt::gpu::make_pass_launches(backend, schedule, true)) {
      for (const std::size_t word_bytes : {8u, 4u}) {
        const auto one = fhe::ntt::gpu::launch_shape(launch, 16, 1, 132, word_bytes);
        const auto kept = fhe::ntt::gpu::launch_shape(launch, 16, 1, 132, word_bytes, false);
        EXPECT_TRUE(one.split) << name;
        EXPECT_FALSE(kept.split) << name;
        EXPECT_FALSE(fhe::ntt::gpu::launch_shape(launch, 16, 17, 132, word_bytes).split) << name;
        const bool four_thousand_threads_a_row =
            launch.kernel == fhe::ntt::gpu::KernelKind::shared_region || launch.stage_count == 4;
        if (word_bytes == 8 && four_thousand_threads_a_row) {
          EXPECT_TRUE(fhe::ntt::gpu::launch_shape(launch, 16, 8, 132, word_bytes).split) << name;
        }
        EXPECT_EQ(std::size_t{one.grid_x} * one.grid_y * one.block,
                  2 * std::size_t{kept.grid_x} * kept.grid_y * kept.block)
            << name;
        const bool paired = launch.kernel == fhe::ntt::gpu::KernelKind::global_pass && launch.stage_count == 4 &&
                            word_bytes == 8;
        EXPECT_EQ(one.dynamic_shared_bytes > 0,
                  launch.kernel == fhe::ntt::gpu::KernelKind::shared_region || paired)
            << name;
      }
    }
  }
}

// A launch that skips rows keeps each region block inside one row: at logN
// 9 (two tiles a row) on one SM a block holds 4 tiles, 2 when it skips
// rows; at logN 10 the split region's 8-tile blocks become 4. At the
// presets' sizes (logN 16: 256 tiles a row) the cap changes nothing.
TEST(NttLaunchShape, SkippingLaunchesKeepRegionBlocksInsideARow) {
  const auto& backend = fhe::ntt::backend_info("radix2_compact_group8_smem8");
  const auto region_shape = [&](int log_n, std::size_t rows, int sm_count, bool skips) {
    const auto launches = fhe::ntt::gpu::make_pass_launches(backend, fhe::ntt::make_schedule(backend, log_n), true);
    EXPECT_EQ(launches.back().kernel, fhe::ntt::gpu::KernelKind::shared_region);
    return fhe::ntt::gpu::launch_shape(launches.back(), log_n, rows, sm_count, 8, true, skips);
  };
  EXPECT_EQ(region_shape(9, 15, 1, false).tiles_per_block, 4u);
  EXPECT_EQ(region_shape(9, 15, 1, true).tiles_per_block, 2u);
  const auto split = region_shape(10, 3, 1, false), split_skipping = region_shape(10, 3, 1, true);
  EXPECT_TRUE(split.split);
  EXPECT_EQ(split.tiles_per_block, 8u);
  EXPECT_EQ(split_skipping.tiles_per_block, 4u);
  EXPECT_EQ(split_skipping.block, 4u * fhe::ntt::gpu::kSplitThreadsPerTile);
  for (const std::size_t rows : {1u, 39u, 390u}) {
    const auto plain = region_shape(16, rows, 132, false), skipping = region_shape(16, rows, 132, true);
    EXPECT_EQ(skipping.tiles_per_block, plain.tiles_per_block) << rows;
    EXPECT_EQ(skipping.grid_x, plain.grid_x) << rows;
  }
}

// Launches over more words than half the L2 alternate their row order, the
// first keeping last_first: at the H200's 50 MiB, a level-0 ModUp's 390
// rows (195 MiB) and a ModDown's 70 (35 MiB) alternate, a 39-row transform
// (19.5 MiB) does not. visit_index maps a launch's blocks in either order.
TEST(NttLaunchShape, LaunchesBeyondHalfTheL2AlternateTheirRowOrder) {
  constexpr std::size_t kRow = std::size_t{8} << 16, kL2 = std::size_t{50} << 20;
  for (const std::size_t rows : {390u, 70u}) {
    EXPECT_FALSE(fhe::ntt::gpu::rows_ascending(0, rows * kRow, kL2)) << rows;
    EXPECT_TRUE(fhe::ntt::gpu::rows_ascending(1, rows * kRow, kL2)) << rows;
    EXPECT_FALSE(fhe::ntt::gpu::rows_ascending(2, rows * kRow, kL2)) << rows;
    EXPECT_TRUE(fhe::ntt::gpu::rows_ascending(3, rows * kRow, kL2)) << rows;
  }
  for (std::size_t index = 0; index < 4; ++index) {
    EXPECT_FALSE(fhe::ntt::gpu::rows_ascending(index, 39 * kRow, kL2)) << index;
    EXPECT_FALSE(fhe::ntt::gpu::rows_ascending(index, kL2 / 2, kL2)) << index;
  }
  fhe::ntt::gpu::PassArgs<std::uint64_t> args{};
  EXPECT_EQ(fhe::ntt::gpu::visit_index(args, 0, 7), 6u);
  EXPECT_EQ(fhe::ntt::gpu::visit_index(args, 6, 7), 0u);
  args.rows_ascending = true;
  EXPECT_EQ(fhe::ntt::gpu::visit_index(args, 0, 7), 0u);
  EXPECT_EQ(fhe::ntt::gpu::visit_index(args, 6, 7), 6u);
}

// The pass next to the region shares its launch from one wave of
// pass-region blocks at the throughput cap (3 blocks of 256 threads an SM):
// at logN 16 on 132 SMs a 4-stage pass's 16-tile blocks from 396 blocks
// (24.75 rows: 19 rows alone, 32 fused), a 2-stage pass's 4-tile blocks
// from 1584 (the same rows); never one row, nor radix2_indexed, nor the
// forward of a lifted first pass. The inverse fuses the region with the
// pass after it.
TEST(NttLaunchShape, PassAndRegionShareALaunchFromOneWave) {
  using fhe::ntt::gpu::runs_pass_with_region;
  int two_launch_backends = 0;  // the lifted case below must run for some
  for (const char* name : {"radix2_compact_group16_smem8", "radix2_compact_group8_smem8", "radix4_compact"}) {
    const auto& backend = fhe::ntt::backend_info(name);
    const auto schedule = fhe::ntt::make_schedule(backend, 16);
    for (const bool forward : {true, false}) {
      const auto launches = fhe::ntt::gpu::make_pass_launches(backend, schedule, forward);
      const std::size_t pair = forward ? launches.size() - 2 : 0;  // the pass and the region
      const int g = launches[forward ? pair : pair + 1].stage_count;
      EXPECT_EQ(fhe::ntt::gpu::pass_region_shape(g, 16, 32, 8).block, 16u << g) << name;
      EXPECT_TRUE(runs_pass_with_region(launches, pair, forward, 16, 32, 132, 8, false)) << name;
      EXPECT_TRUE(runs_pass_with_region(launches, pair, forward, 16, 25, 132, 8, false)) << name;
      EXPECT_FALSE(runs_pass_with_region(launches, pair, forward, 16, 24, 132, 8, false)) << name;
      EXPECT_FALSE(runs_pass_with_region(launches, pair, forward, 16, 19, 132, 8, false)) << name;
      EXPECT_FALSE(runs_pass_with_region(launches, pair, forward, 16, 1, 132, 8, false)) << name;
      for (std::size_t i = 0; i < launches.size(); ++i) {
        if (i != pair) EXPECT_FALSE(runs_pass_with_region(launches, i, forward, 16, 390, 132, 8, false)) << name;
      }
    }
    // Only the forward's first pass lifts: at logN 12 it is the one next to the region.
    const auto short_launches = fhe::ntt::gpu::make_pass_launches(backend, fhe::ntt::make_schedule(backend, 12), true);
    if (short_launches.size() == 2) {
      ++two_launch_backends;
      EXPECT_FALSE(runs_pass_with_region(short_launches, 0, true, 12, 4000, 132, 8, true)) << name;
      EXPECT_TRUE(runs_pass_with_region(short_launches, 0, true, 12, 4000, 132, 8, false)) << name;
    }
  }
  EXPECT_GT(two_launch_backends, 0);
  const auto& indexed = fhe::ntt::backend_info("radix2_indexed");
  const auto indexed_launches = fhe::ntt::gpu::make_pass_launches(indexed, fhe::ntt::make_schedule(indexed, 16), true);
  for (std::size_t i = 0; i < indexed_launches.size(); ++i) {
    EXPECT_FALSE(runs_pass_with_region(indexed_launches, i, true, 16, 390, 132, 8, false));
  }
}

// Two global passes share a launch (the pass-pair kernel) from one wave
// of its 4096-word blocks (396 on 132 SMs: 25 rows at logN 16), and
// group8's three and group4's four before a caller's region (the pass-group
// kernel), where they
// have the same stage count and, below 4 stages, the region does not take
// the second: at logN 16 group16's and radix16's two passes (4 + 4, the
// region then alone, in both directions and before a caller's region),
// group8's first two (3 + 3) and group4's (2 + 2) in every transform, and
// group4's middle two in the inverse and before a caller's region; a
// lifted first pass too (the rescale's); never passes whose blocks would
// leave a block of the lower pass (logN 11).
TEST(NttLaunchShape, TwoPassesShareALaunchFromOneWave) {
  using fhe::ntt::gpu::LaunchGroup;
  const auto launches_of = [](const char* name, int log_n, bool forward) {
    const auto& backend = fhe::ntt::backend_info(name);
    return fhe::ntt::gpu::make_pass_launches(backend, fhe::ntt::make_schedule(backend, log_n), forward);
  };
  const auto group = [](const auto& launches, std::size_t i, std::size_t count, bool forward, std::size_t rows,
                        bool lifted = false, int log_n = 16) {
    return fhe::ntt::gpu::launch_group(launches, i, count, forward, log_n, rows, 132, 8, lifted).kind;
  };
  for (const char* name : {"radix2_compact_group16_smem8", "radix16_compact"}) {
    const auto forward = launches_of(name, 16, true);  // 4, 4 stages, region
    ASSERT_EQ(forward.size(), 3u) << name;
    EXPECT_EQ(group(forward, 0, 3, true, 355), LaunchGroup::pass_pair) << name;
    EXPECT_EQ(group(forward, 2, 3, true, 355), LaunchGroup::alone) << name;
    EXPECT_EQ(group(forward, 0, 2, true, 355), LaunchGroup::pass_pair) << name;  // the ModUp's
    EXPECT_EQ(group(forward, 0, 2, true, 25), LaunchGroup::pass_pair) << name;
    EXPECT_EQ(group(forward, 0, 3, true, 24), LaunchGroup::alone) << name;
    EXPECT_EQ(group(forward, 1, 3, true, 24), LaunchGroup::alone) << name;
    EXPECT_EQ(group(forward, 0, 2, true, 68, true), LaunchGroup::pass_pair) << name;  // the rescale's, lifted
    const auto inverse = launches_of(name, 16, false);  // region, 4, 4 stages
    EXPECT_EQ(group(inverse, 0, 3, false, 355), LaunchGroup::alone) << name;
    EXPECT_EQ(group(inverse, 1, 3, false, 355), LaunchGroup::pass_pair) << name;
    EXPECT_EQ(group(inverse, 0, 3, false, 24), LaunchGroup::alone) << name;
  }
  const auto group8 = launches_of("radix2_compact_group8_smem8", 16, true);  // 3, 3, 2 stages, region
  EXPECT_EQ(group(group8, 0, 4, true, 39), LaunchGroup::pass_pair);
  EXPECT_EQ(group(group8, 2, 4, true, 39), LaunchGroup::pass_with_region);
  // Before a caller's region (the ModUp's key product, the ModDown's
  // finish) group8's three passes share one launch from one wave, lifted or not.
  EXPECT_EQ(group(group8, 0, 3, true, 355), LaunchGroup::pass_group);
  EXPECT_EQ(group(group8, 0, 3, true, 25), LaunchGroup::pass_group);
  EXPECT_EQ(group(group8, 0, 3, true, 24), LaunchGroup::alone);
  EXPECT_EQ(group(group8, 0, 3, true, 68, true), LaunchGroup::pass_group);  // the rescale's, lifted
  EXPECT_EQ(group(group8, 1, 3, true, 355), LaunchGroup::alone);  // 3 + 2 stages do not pair
  EXPECT_EQ(group(group8, 0, 2, true, 355), LaunchGroup::pass_pair);  // a finish that takes the third
  const auto group8_inverse = launches_of("radix2_compact_group8_smem8", 16, false);  // region, 2, 3, 3
  EXPECT_EQ(group(group8_inverse, 0, 4, false, 39), LaunchGroup::pass_with_region);
  EXPECT_EQ(group(group8_inverse, 2, 4, false, 39), LaunchGroup::pass_pair);
  const auto group4 = launches_of("radix2_compact_group4_smem8", 16, true);  // 2, 2, 2, 2 stages, region
  EXPECT_EQ(group(group4, 0, 5, true, 39), LaunchGroup::pass_pair);
  EXPECT_EQ(group(group4, 2, 5, true, 39), LaunchGroup::alone);  // the fourth goes with the region
  EXPECT_EQ(group(group4, 3, 5, true, 39), LaunchGroup::pass_with_region);
  EXPECT_EQ(group(group4, 0, 4, true, 39), LaunchGroup::pass_group);  // before a caller's region
  EXPECT_EQ(group(group4, 0, 4, true, 24), LaunchGroup::alone);  // below one wave
  EXPECT_EQ(group(group4, 2, 4, true, 39), LaunchGroup::pass_pair);
  const auto group4_inverse = launches_of("radix2_compact_group4_smem8", 16, false);  // region, 2, 2, 2, 2
  EXPECT_EQ(group(group4_inverse, 0, 5, false, 39), LaunchGroup::pass_with_region);
  EXPECT_EQ(group(group4_inverse, 2, 5, false, 39), LaunchGroup::pass_pair);
  EXPECT_EQ(group(group4_inverse, 4, 5, false, 39), LaunchGroup::alone);
  const auto short_group4 = launches_of("radix2_compact_group4_smem8", 11, true);  // 2, 1 stages, region
  EXPECT_EQ(group(short_group4, 0, 2, true, 4000, false, 11), LaunchGroup::alone);
  const auto indexed = launches_of("radix2_indexed", 16, true);
  for (std::size_t i = 0; i < indexed.size(); ++i) EXPECT_EQ(group(indexed, i, 16, true, 390), LaunchGroup::alone);
  const auto shape = fhe::ntt::gpu::pass_pair_shape(16, 25, 8);
  EXPECT_EQ(shape.grid_x * shape.grid_y, 400u);
  EXPECT_EQ(shape.block, 256u);
  EXPECT_EQ(shape.dynamic_shared_bytes, (4096u + 256u) * 8u);
}

// The ModUp lifts its digits of one prime in the first pass where that
// takes no launch of its own (lift_keeps_launches): at logN 16 group16's
// and radix16's pair lifts before the key product's region at levels 0 and
// 17 (390 and 132 rows), and so do group8's three passes and group4's and
// radix4's four in their pass group; at level 33 (12 rows, every pass
// alone at the latency cap) every compact backend lifts; a lone lifted
// first pass where the unlifted one is a throughput launch (24 rows) would
// run at the latency cap; radix2_indexed cannot lift.
TEST(NttLaunchShape, LiftsWhereTheLaunchesStayTheSame) {
  const auto keeps = [](const char* name, std::size_t rows, bool before_region) {
    const auto& backend = fhe::ntt::backend_info(name);
    const auto launches = fhe::ntt::gpu::make_pass_launches(backend, fhe::ntt::make_schedule(backend, 16), true);
    return fhe::ntt::gpu::lift_keeps_launches(launches, launches.size() - (before_region ? 1 : 0), 16, rows, 132, 8);
  };
  for (const char* name : {"radix2_compact_group16_smem8", "radix16_compact"}) {
    EXPECT_TRUE(keeps(name, 390, true)) << name;
    EXPECT_TRUE(keeps(name, 132, true)) << name;
    EXPECT_TRUE(keeps(name, 12, false)) << name;
    EXPECT_FALSE(keeps(name, 24, false)) << name;
  }
  for (const char* name : {"radix2_compact_group8_smem8", "radix2_compact_group4_smem8", "radix4_compact"}) {
    EXPECT_TRUE(keeps(name, 390, true)) << name;  // the pass group lifts
    EXPECT_TRUE(keeps(name, 132, true)) << name;
    EXPECT_TRUE(keeps(name, 390, false)) << name;  // a whole forward: the pairs lift
  }
  EXPECT_TRUE(keeps("radix2_compact_group8_smem8", 12, false));
  EXPECT_FALSE(keeps("radix2_indexed", 390, false));
  EXPECT_FALSE(keeps("radix2_indexed", 12, false));
}

// The ModDown and rescale finish takes the pass before the region too only
// where the plan would fuse them and the rows exceed the L2: at the H200's
// 60 MiB (120 rows of 2^16 words) a ModDown of eight parts (280 rows) does,
// of two (70) does not; nor a lifted first pass next to the region (logN 12).
TEST(NttLaunchShape, FinishTakesThePassBeyondTheL2) {
  using fhe::ntt::gpu::leaves_pass_to_region_kernel;
  constexpr std::size_t kL2 = std::size_t{60} << 20;
  const auto& backend = fhe::ntt::backend_info("radix2_compact_group16_smem8");
  const auto launches = fhe::ntt::gpu::make_pass_launches(backend, fhe::ntt::make_schedule(backend, 16), true);
  EXPECT_TRUE(leaves_pass_to_region_kernel(launches, 16, 280, 132, 8, false, kL2));
  EXPECT_TRUE(leaves_pass_to_region_kernel(launches, 16, 121, 132, 8, false, kL2));
  EXPECT_FALSE(leaves_pass_to_region_kernel(launches, 16, 120, 132, 8, false, kL2));
  EXPECT_FALSE(leaves_pass_to_region_kernel(launches, 16, 70, 132, 8, false, kL2));
  EXPECT_TRUE(leaves_pass_to_region_kernel(launches, 16, 70, 132, 8, false, 0));
  EXPECT_FALSE(leaves_pass_to_region_kernel(launches, 16, 19, 132, 8, false, 0));  // below a wave
  const auto short_launches = fhe::ntt::gpu::make_pass_launches(backend, fhe::ntt::make_schedule(backend, 12), true);
  EXPECT_FALSE(leaves_pass_to_region_kernel(short_launches, 12, 4000, 132, 8, true, 0));
  EXPECT_TRUE(leaves_pass_to_region_kernel(short_launches, 12, 4000, 132, 8, false, 0));
}

// The kernels divide row and block indices by launch constants with a
// multiply and a shift: exact for every divisor against / and %, at the
// small and the large end of the numerator range.
TEST(FastDivisor, MatchesIntegerDivision) {
  std::mt19937 random(3);
  for (std::uint32_t d = 1; d <= 5000; ++d) {
    const fhe::ntt::gpu::FastDivisor divisor(d);
    for (int i = 0; i < 200; ++i) {
      const std::uint32_t n = i < 100 ? static_cast<std::uint32_t>(i) * 997u % (1u << 24)
                                      : (1u << 24) - 1u - static_cast<std::uint32_t>(random() % 100000);
      ASSERT_EQ(divisor.quotient(n), n / d) << n << " / " << d;
      ASSERT_EQ(divisor.remainder(n), n % d) << n << " % " << d;
    }
  }
  const fhe::ntt::gpu::FastDivisor large((1u << 24) - 3);
  EXPECT_EQ(large.quotient((1u << 24) - 1), 1u);
  EXPECT_EQ(large.remainder((1u << 24) - 1), 2u);
}

// A pass marked `consecutive` has, at every stage, the twiddles of one
// thread's groups side by side, which the kernels rely on to load them at
// constant offsets from the first. Checked for every pass of every
// backend at logN 8-17, over many thread groups; compact passes are always
// marked, and so are the strict radix passes at least sometimes.
TEST(StageTwiddleAddress, ConsecutiveGroupsAreSideBySide) {
  int compact = 0, strict = 0;
  for (int log_n = 8; log_n <= 17; ++log_n) {
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, log_n).compatible) continue;
      const auto schedule = fhe::ntt::make_schedule(backend, log_n);
      for (const auto& launch : fhe::ntt::gpu::make_pass_launches(backend, schedule, true)) {
        if (launch.kernel == fhe::ntt::gpu::KernelKind::indexed_stage) continue;
        const auto& address = launch.address;
        const bool is_strict = backend.family == fhe::ntt::BackendFamily::strict_radix;
        if (!is_strict) EXPECT_TRUE(address.consecutive) << backend.name << " logN " << log_n;
        if (!address.consecutive) continue;
        (is_strict ? strict : compact) += 1;
        const int stages = launch.kernel == fhe::ntt::gpu::KernelKind::shared_region ? fhe::ntt::gpu::kTileBits
                                                                                      : launch.stage_count;
        for (int r = 0; r < stages; ++r) {
          const int j = r % fhe::ntt::gpu::kRoundStages;
          for (std::uint32_t b = 0; b < 300; ++b) {
            const std::uint32_t first = fhe::ntt::gpu::twiddle_index(address, r, b << j);
            for (std::uint32_t g = 0; g < (1u << j); ++g) {
              ASSERT_EQ(fhe::ntt::gpu::twiddle_index(address, r, (b << j) + g), first + g)
                  << backend.name << " logN " << log_n << " stage " << r << " block group " << b;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compact, 0);
  EXPECT_GT(strict, 0);
}

}  // namespace
