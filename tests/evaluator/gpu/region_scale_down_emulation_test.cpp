// The fused region + RnsScaleDown finish (evaluator/cuda/region_scale_down.cuh)
// run on the host, phase by phase and thread by thread with shared memory
// starting as garbage, on the NTT emulator's output of every forward pass
// but the last, with the NTT's own block layout. Checked against the
// complete forward transform of every item (CPU radix2_indexed) followed by
// the finish in plain modular arithmetic (the emulator runs the region's
// first two phases; the finish is the third). Covers the 8- and 6-stage
// regions, consecutive and general twiddle addressing, 64- and 32-bit
// words, one to eight items, with and without addends, and the block
// layouts of a large and a one-SM device, so the finish runs both with a
// block's row read once (blocks within one row) and per pair (blocks over
// several rows of a small N), and rows of both 64-bit arithmetics: 40-bit
// primes run the double-precision butterflies and finish in doubles on the
// region's unreduced words, alone and in one batch with 60-bit rows (the
// default preset's first Q prime). Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "evaluator/cuda/region_scale_down.cuh"
#include "fhe/ntt/registry.h"
#include "tests/fhe/gpu/kernel_emulator.h"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

// How many blocks' finishes ran each path (scale_down_tiles), and how many
// kept rows the region ran in double precision.
struct FinishPaths {
  std::size_t one_row = 0, several_rows = 0, fp64_rows = 0;
};

struct Case {
  const char* backend;
  int log_n;
  int bits;  // > 30: 64-bit words
  int kept_rows;
  int wide_rows;  // of them, the first this many 60-bit, the rest `bits`-bit
  int items;
  bool addend;
  int sm_count;
};

// Returns whether the plan left the pass before the region to the kernel.
template <typename Word>
bool check(const Case& c, FinishPaths& paths) {
  SCOPED_TRACE(::testing::Message() << c.backend << " logN " << c.log_n << ", " << c.bits << "-bit, " << c.items
                                    << " items, addend " << c.addend << ", sm " << c.sm_count);
  const ntt::BackendInfo& backend = ntt::backend_info(c.backend);
  EXPECT_TRUE(ntt::compatibility(backend, c.log_n).compatible);
  const std::size_t n = std::size_t{1} << c.log_n;
  const auto rows = static_cast<std::size_t>(c.kept_rows), items = static_cast<std::size_t>(c.items);
  const std::size_t first_row = 1;  // row 0 unused: exercises the offsets
  // Row 0 and the kept rows of `bits`, the 60-bit ones inserted first.
  std::vector<u64> moduli =
      testing::ntt_moduli(c.log_n, static_cast<int>(first_row) + c.kept_rows - c.wide_rows, c.bits);
  const std::vector<u64> wide = testing::ntt_moduli(c.log_n, c.wide_rows, 60);
  moduli.insert(moduli.begin() + first_row, wide.begin(), wide.end());
  const auto word = c.bits > 30 ? WordType::int64 : WordType::int32;
  std::mt19937_64 rng(500 + c.log_n * 13 + c.items);
  const auto random_word = [&](std::size_t r) { return rng() % moduli[first_row + r]; };

  // Converted rows (coefficient form), their reference transform and the
  // emulated earlier passes; x, addend, [D^-1] per kept row.
  std::vector<u64> converted(items * rows * n);
  for (std::size_t i = 0; i < converted.size(); ++i) converted[i] = random_word((i / n) % rows);
  std::vector<u64> transformed = converted;
  const auto oracle = ntt::make_plan("radix2_indexed", {}, c.log_n, moduli, word);
  for (std::size_t i = 0; i < items; ++i) oracle->forward(transformed.data() + i * rows * n, {first_row, rows});
  testing::KernelEmulator<Word> emulator(backend, c.log_n, moduli, c.sm_count);
  std::optional<ntt::gpu::PassArgs<Word>> pass;
  const ntt::gpu::PassArgs<Word> region =
      emulator.forward_before_region(converted, {first_row, rows}, items, nullptr, &pass);
  for (std::size_t r = 0; r < rows; ++r) paths.fp64_rows += region.constants[first_row + r].fp64 != 0;

  std::vector<std::vector<u64>> x(items, std::vector<u64>(rows * n)), addend = x, out = x;
  std::vector<u64> inverse(rows), inverse_shoup(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    inverse[r] = random_word(r);
    inverse_shoup[r] = shoup_companion<u64>(inverse[r], moduli[first_row + r]);
  }
  cuda::RegionScaleDownArgs<Word> f{region, {}, {}};
  if (pass) f.pass = *pass;
  f.scale_down.inverse_mod_kept = inverse.data();
  f.scale_down.inverse_mod_kept_shoup = inverse_shoup.data();
  f.scale_down.kept_rows = c.kept_rows;
  for (std::size_t i = 0; i < items; ++i) {
    for (std::size_t k = 0; k < rows * n; ++k) {
      x[i][k] = random_word(k / n);
      addend[i][k] = random_word(k / n);
      out[i][k] = rng();  // garbage the kernel must overwrite
    }
    f.items[i] = {x[i].data(), nullptr, out[i].data(), c.addend ? addend[i].data() : nullptr};
  }

  // The region's first two phases (after the pass, when it is left), then
  // the finish, on the plan's block layout.
  emulator.forward_region_then(
      region,
      [&](const ntt::gpu::PassArgs<Word>&, Word* shared, std::uint32_t block, std::uint32_t tiles_per_block,
          std::uint32_t thread) {
        if (thread == 0) ++(cuda::finish_blocks_in_one_row(f, tiles_per_block) ? paths.one_row : paths.several_rows);
        cuda::scale_down_tiles<Word>(f, shared, block, tiles_per_block, thread);
      },
      pass, true);

  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < items; ++i) {
    for (std::size_t k = 0; k < rows * n; ++k) {
      const std::size_t r = k / n;
      const u64 q = moduli[first_row + r];
      const u64 t = transformed[i * rows * n + k];
      u64 expected = static_cast<u64>(static_cast<unsigned __int128>((x[i][k] + q - t) % q) * inverse[r] % q);
      if (c.addend) expected = (expected + addend[i][k]) % q;
      mismatches += out[i][k] != expected;
    }
  }
  EXPECT_EQ(mismatches, 0u);
  return pass.has_value();
}

TEST(RegionScaleDownEmulation, MatchesForwardTransformThenFinish) {
  // A ModDown's Q rows (two and eight items, an addend), a rescale's kept
  // rows (three items); the 6-stage region of radix8 and radix4's general
  // twiddle addressing; logN 8 (the region alone); one-SM layouts. Where a
  // launch fills a wave of pass-region blocks on one SM, the pass before
  // the region runs in the kernel too: 4, 3 and 2 stages, the last with the
  // general addressing. 40-bit rows: alone, after a 60-bit row (blocks of
  // each kind, and at logN 8 pairs of both kinds in one block), with and
  // without addends.
  FinishPaths paths;
  int fused = 0;
  fused += check<u64>({"radix2_compact_group16_smem8", 12, 60, 5, 0, 2, true, 132}, paths);
  fused += check<u64>({"radix16_compact", 12, 61, 3, 0, 8, false, 132}, paths);
  fused += check<u64>({"radix8_compact", 12, 60, 4, 0, 3, false, 1}, paths);
  fused += check<std::uint32_t>({"radix2_compact_group8_smem8", 11, 28, 4, 0, 3, true, 1}, paths);
  fused += check<std::uint32_t>({"radix4_compact", 10, 28, 3, 0, 2, true, 132}, paths);
  fused += check<u64>({"radix2_compact_group4_smem8", 9, 60, 2, 0, 2, false, 1}, paths);
  fused += check<u64>({"radix2_compact_group8_smem8", 8, 60, 3, 0, 1, true, 132}, paths);
  EXPECT_EQ(fused, 1);  // group8 at logN 11 on one SM
  EXPECT_EQ(paths.fp64_rows, 0u);
  fused += check<u64>({"radix2_compact_group16_smem8", 12, 60, 5, 0, 2, true, 1}, paths);
  fused += check<u64>({"radix4_compact", 12, 40, 5, 0, 2, false, 1}, paths);
  fused += check<u64>({"radix16_compact", 12, 40, 4, 1, 3, true, 132}, paths);
  fused += check<u64>({"radix2_compact_group8_smem8", 11, 40, 3, 1, 2, true, 1}, paths);
  fused += check<u64>({"radix2_compact_group16_smem8", 8, 40, 3, 1, 2, true, 132}, paths);
  EXPECT_EQ(fused, 4);
  EXPECT_EQ(paths.fp64_rows, 5u + 3u + 2u + 2u);
  EXPECT_GT(paths.one_row, 0u);
  EXPECT_GT(paths.several_rows, 0u);  // logN 8: one tile a row
}

}  // namespace
}  // namespace fhe
