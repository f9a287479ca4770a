// The fused ModUp region + key product (evaluator/cuda/region_key_product.cuh)
// run on the host, phase by phase and thread by thread with shared memory
// starting as garbage, on the NTT emulator's output of every forward pass
// but the last. Checked against a reference built another way: the complete
// forward transform of every digit (CPU radix2_indexed), then the key inner
// product in plain modular arithmetic. Covers relinearization and rotation
// terms, a plaintext factor, split outputs (Q rows and a P block) and
// accumulated extended sums, 64- and 32-bit words, 8- and 6-stage regions,
// one and two output tiles a block. Runs without a GPU, so CI checks the
// fused kernel's indexing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "evaluator/cuda/region_key_product.cuh"
#include "fhe/ckks/galois.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "tests/evaluator/gpu/extended_sum_fixture.h"
#include "tests/fhe/gpu/kernel_emulator.h"
#include "tests/fhe/ntt_test_util.h"

namespace fhe {
namespace {

using u64 = std::uint64_t;

struct Case {
  const char* backend;
  int log_n;
  int bits;  // > 30: 64-bit words
  int digits;
  int q_rows, p_rows;
  bool galois;      // a rotation (by 3 slots) rather than relinearization
  bool accumulate;  // add a plaintext-weighted term to an extended sum
  bool skip_own = false;  // the ModUp's passes skip each digit's own Q rows
  int narrow_bits = 0;    // > 0: rows up to the Q rows of this width, the P rows of `bits`
  int plain_block_log = 0;  // the plaintext one word a block of 2^this (evaluator/block_rows.h)
  bool split_rows = false;  // two launches, the P rows then the Q rows (fused_key_switch)
};

u64 mul(u64 x, u64 y, u64 q) { return static_cast<u64>(static_cast<unsigned __int128>(x) * y % q); }
u64 add(u64 x, u64 y, u64 q) { return (x + y) % q; }

// What both checks build on: the extended rows' primes (with narrow_bits
// the Q rows narrow and the P rows wide, a preset's mix), digits, c0, [P]_(q)
// and keys (testing::ExtendedSumFixture); the NTT emulator's passes but the
// last run on the digits in coefficient form, their complete transforms
// (the reference), and each digit's own Q rows in the decomposed part where
// the passes skip them.
constexpr std::size_t kFirstRow = testing::ExtendedSumFixture::kFirstRow;
constexpr int kFirstDigit = testing::ExtendedSumFixture::kFirstDigit;

std::vector<u64> fused_moduli(int log_n, int bits, int narrow_bits, int q_rows, int p_rows) {
  std::vector<u64> moduli = testing::ntt_moduli(log_n, static_cast<int>(kFirstRow) + q_rows + p_rows, bits);
  if (narrow_bits > 0) {
    const std::vector<u64> narrow = testing::ntt_moduli(log_n, 1 + q_rows, narrow_bits);
    std::copy(narrow.begin(), narrow.end(), moduli.begin());
  }
  return moduli;
}

template <typename Word>
struct FusedInputs : testing::ExtendedSumFixture {
  FusedInputs(const char* backend_name, int log_n_, int bits, int narrow_bits, int digit_count, int q_rows_,
              int p_rows, bool skip_own, std::uint64_t seed)
      : ExtendedSumFixture(fused_moduli(log_n_, bits, narrow_bits, q_rows_, p_rows), log_n_,
                           static_cast<std::size_t>(q_rows_), static_cast<std::size_t>(digit_count), seed) {
    transformed = ext;
    const auto word = bits > 30 ? WordType::int64 : WordType::int32;
    const auto oracle = ntt::make_plan("radix2_indexed", {}, log_n, moduli, word);
    for (std::size_t d = 0; d < digits; ++d) oracle->forward(transformed.data() + d * rows * n, {kFirstRow, rows});
    // With skip_own, digit d owns Q rows [starts[d], starts[d + 1]): the
    // passes skip them, the extended buffer holds garbage there, and the
    // fused kernel reads them from the decomposed part (the oracle's words).
    if (skip_own) {
      const auto q = static_cast<std::uint32_t>(q_rows);
      const auto per_digit = (q + static_cast<std::uint32_t>(digits) - 1) / static_cast<std::uint32_t>(digits);
      for (std::uint32_t d = 0; d <= digits; ++d) starts.push_back(std::min(q, d * per_digit));
      decomposed.resize(q_rows * n);
      for (std::size_t d = 0; d < digits; ++d) {
        for (std::size_t r = starts[d]; r < starts[d + 1]; ++r) {
          for (std::size_t k = 0; k < n; ++k) {
            decomposed[r * n + k] = transformed[(d * rows + r) * n + k];
            ext[(d * rows + r) * n + k] = rng();
          }
        }
      }
    }
    emulator = std::make_unique<testing::KernelEmulator<Word>>(ntt::backend_info(backend_name), log_n, moduli, 132);
    region = emulator->forward_before_region(ext, {kFirstRow, rows}, digits, skip_own ? starts.data() : nullptr);
  }

  // The fixture's arguments, with the decomposed part where the passes skip rows.
  cuda::ExtendedSumArgs sum_args() const {
    cuda::ExtendedSumArgs s = ExtendedSumFixture::sum_args();
    s.decomposed = starts.empty() ? nullptr : decomposed.data();
    return s;
  }

  // Digit d's x times the key's component (kFirstDigit + d) * 2 + part,
  // summed over the digits, at row r, position k (source: the digits'
  // position, the Galois permutation's for a rotation).
  u64 key_product(const std::vector<u64>& key, int part, std::size_t r, std::size_t k, std::size_t source) const {
    const std::size_t id = kFirstRow + r;
    const u64 q = moduli[id];
    u64 sum = 0;
    for (std::size_t d = 0; d < digits; ++d) {
      const u64 x = transformed[(d * rows + r) * n + source];
      const std::size_t component = (kFirstDigit + d) * 2 + static_cast<std::size_t>(part);
      sum = add(sum, mul(x, key[(component * key_rows + id) * n + k], q), q);
    }
    return sum;
  }

  std::vector<u64> transformed, decomposed;
  std::vector<std::uint32_t> starts;
  std::unique_ptr<testing::KernelEmulator<Word>> emulator;
  ntt::gpu::PassArgs<Word> region{};
};

// The kernel's three phases over every block of the launch, as the device
// runs them (a barrier between phases), launch row y on the kernel's row;
// phase3(x, y, thread) the key product(s), by default fused_key_product's.
template <typename Word, int Skip, bool Consecutive, bool Galois, typename Phase3>
void emulate(const cuda::RegionKeyProductArgs<Word>& f, std::uint32_t grid_x, std::uint32_t grid_y,
             std::uint32_t threads, std::mt19937_64& garbage, Phase3&& phase3) {
  std::vector<Word> shared(static_cast<std::size_t>(threads / ntt::gpu::kThreadsPerTile) *
                           ntt::gpu::kPaddedTileWords);
  for (std::uint32_t launch_row = 0; launch_row < grid_y; ++launch_row) {
    const std::uint32_t y = cuda::fused_output_row(f.first_row, launch_row, grid_y);
    for (std::uint32_t x = 0; x < grid_x; ++x) {
      for (Word& w : shared) w = static_cast<Word>(garbage());
      for (std::uint32_t t = 0; t < threads; ++t) {
        cuda::digit_tile_columns<Word, Skip, Consecutive>(f, shared.data(),
                                                          cuda::fused_tile_thread<Word, Galois>(f, x, y, t), y);
      }
      for (std::uint32_t t = 0; t < threads; ++t) {
        cuda::digit_tile_rows<Word, Skip, Consecutive>(f, shared.data(),
                                                       cuda::fused_tile_thread<Word, Galois>(f, x, y, t));
      }
      for (std::uint32_t t = 0; t < threads; ++t) phase3(shared.data(), x, y, t);
    }
  }
}

template <typename Word, int Skip, bool Consecutive, bool Galois>
void emulate(const cuda::RegionKeyProductArgs<Word>& f, std::uint32_t grid_x, std::uint32_t grid_y,
             std::uint32_t threads, std::mt19937_64& garbage) {
  emulate<Word, Skip, Consecutive, Galois>(
      f, grid_x, grid_y, threads, garbage, [&](const Word* shared, std::uint32_t x, std::uint32_t y, std::uint32_t t) {
        if (cuda::fused_digits_per_round(f.sum.digits) == 10) {  // the digits a round the launch picks
          cuda::fused_key_product<Word, Galois, 10>(f, shared, x, y, t, threads);
        } else {
          cuda::fused_key_product<Word, Galois, 5>(f, shared, x, y, t, threads);
        }
      });
}

template <typename Word>
void check(const Case& c) {
  SCOPED_TRACE(::testing::Message() << c.backend << " logN " << c.log_n << ", " << c.bits << "-bit (narrow "
                                    << c.narrow_bits << "), " << c.digits
                                    << " digits, galois " << c.galois << ", accumulate " << c.accumulate);
  ASSERT_TRUE(ntt::compatibility(ntt::backend_info(c.backend), c.log_n).compatible);
  FusedInputs<Word> in(c.backend, c.log_n, c.bits, c.narrow_bits, c.digits, c.q_rows, c.p_rows, c.skip_own,
                       1000 + c.log_n * 17 + c.digits);
  const std::size_t n = in.n, rows = in.rows, first_row = kFirstRow;
  const auto random_row_word = [&](std::size_t id) { return in.random_row_word(id); };
  const ntt::gpu::PassArgs<Word>& region = in.region;

  // Key, table, plaintext.
  const auto [key, packed] = in.random_key();
  const std::vector<std::uint32_t> table =
      c.galois ? galois_ntt_permutation(galois_element_for_step(3, c.log_n), c.log_n) : std::vector<std::uint32_t>{};
  std::vector<u64> plain((rows * n) >> c.plain_block_log);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = random_row_word(first_row + (i << c.plain_block_log) / n);
  const cuda::ExtendedSumArgs s = in.sum_args();
  const cuda::RotationTerm term{packed.data(), c.galois ? table.data() : nullptr,
                                c.accumulate ? plain.data() : nullptr, c.plain_block_log};
  // Split outputs: Q rows of b and a, then the P block (b's, a's); sums:
  // every row of b and a, starting from random words.
  std::vector<u64> out_b(rows * n), out_a(rows * n), p_block(2 * static_cast<std::size_t>(c.p_rows) * n);
  for (std::size_t i = 0; i < out_b.size(); ++i) {
    out_b[i] = random_row_word(first_row + i / n);
    out_a[i] = random_row_word(first_row + i / n);
  }
  const std::vector<u64> old_b = out_b, old_a = out_a;
  const cuda::TermOutput out{out_b.data(), out_a.data(), c.accumulate ? nullptr : p_block.data(), c.accumulate};

  const unsigned tiles = cuda::fused_tiles_per_block(c.digits, c.log_n);
  const auto grid_x = static_cast<std::uint32_t>((n >> ntt::gpu::kTileBits) / tiles);
  const auto threads = static_cast<std::uint32_t>(tiles * in.digits * ntt::gpu::kThreadsPerTile);
  std::mt19937_64 garbage(99);
  // Launches as {first row, rows}: one over every row, or the P rows' then the Q rows'.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> launches = {{0, static_cast<std::uint32_t>(rows)}};
  if (c.split_rows) {
    launches = {{static_cast<std::uint32_t>(c.q_rows), static_cast<std::uint32_t>(c.p_rows)},
                {0, static_cast<std::uint32_t>(c.q_rows)}};
  }
  for (const auto& [first, count] : launches) {
    const cuda::RegionKeyProductArgs<Word> f{region, term, s, out, tiles, first};
    ntt::gpu::with_region_variant(region.stage_count, region.address.consecutive, [&]<int Skip, bool Consecutive>() {
      if (c.galois) {
        emulate<Word, Skip, Consecutive, true>(f, grid_x, count, threads, garbage);
      } else {
        emulate<Word, Skip, Consecutive, false>(f, grid_x, count, threads, garbage);
      }
    });
  }

  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t id = first_row + r;
    const u64 q = in.moduli[id];
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t source = c.galois ? table[k] : k;
      u64 b = in.key_product(key, 0, r, k, source), a = in.key_product(key, 1, r, k, source);
      const bool q_row = r < static_cast<std::size_t>(c.q_rows);
      if (c.galois && q_row) b = add(b, mul(in.p_mod_q[id], in.c0[r * n + source], q), q);
      if (c.accumulate) {
        const u64 weight = plain[(r * n + k) >> c.plain_block_log];
        b = add(old_b[r * n + k], mul(b, weight, q), q);
        a = add(old_a[r * n + k], mul(a, weight, q), q);
      }
      const std::size_t p_row = r - static_cast<std::size_t>(c.q_rows);
      const u64 got_b = c.accumulate || q_row ? out_b[r * n + k] : p_block[p_row * n + k];
      const u64 got_a = c.accumulate || q_row ? out_a[r * n + k] : p_block[(c.p_rows + p_row) * n + k];
      mismatches += (got_b != b) + (got_a != a);
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(RegionKeyProductEmulation, MatchesForwardTransformThenKeyProduct) {
  // Two output tiles a block at 5 digits, one at 9 to 16; the 6-stage
  // region of radix8; logN 9 (two tiles a row) and 8 (the region alone).
  // Skipped own rows: a Q row each digit (64-bit, relinearization and a
  // rotation), and a Q row each for three of six digits (32-bit).
  check<u64>({"radix2_compact_group16_smem8", 12, 60, 5, 3, 2, false, false});
  check<u64>({"radix2_compact_group16_smem8", 12, 60, 5, 5, 2, false, false, true});
  check<u64>({"radix16_compact", 12, 61, 9, 3, 2, true, false});
  check<u64>({"radix8_compact", 12, 60, 7, 3, 2, true, true});
  check<u64>({"radix8_compact", 12, 60, 7, 7, 2, true, false, true});
  check<std::uint32_t>({"radix2_compact_group8_smem8", 11, 28, 16, 2, 1, true, false});
  check<std::uint32_t>({"radix4_compact", 12, 28, 6, 3, 2, true, false, true});
  check<std::uint32_t>({"radix4_compact", 10, 28, 6, 2, 2, false, true});
  check<u64>({"radix2_compact_group4_smem8", 9, 60, 5, 2, 1, false, true});
  check<u64>({"radix2_compact_group8_smem8", 8, 60, 5, 1, 1, true, false});
  // Plaintexts one word a block of 32, and one word a row.
  check<u64>({"radix8_compact", 12, 60, 7, 3, 2, true, true, false, 0, 5});
  check<std::uint32_t>({"radix4_compact", 10, 28, 6, 2, 2, false, true, false, 0, 10});
  // The default preset's mix: 40-bit Q rows, 60-bit P rows (the key's
  // narrow and wide rows in one launch).
  check<u64>({"radix2_compact_group16_smem8", 12, 60, 5, 5, 2, false, false, true, 40});
  check<u64>({"radix16_compact", 12, 60, 9, 3, 2, true, true, false, 40});
  // Ten digits, the default preset's level 0, and eleven: rounds of ten
  // digits in phase 3 (fused_digits_per_round), with a digit left over.
  check<u64>({"radix2_compact_group16_smem8", 12, 60, 10, 10, 2, true, false, true, 40});
  check<u64>({"radix16_compact", 12, 60, 10, 5, 2, false, true, false, 40});
  check<u64>({"radix2_compact_group8_smem8", 11, 60, 11, 4, 2, true, true});
  // The P rows and the Q rows in two launches (fused_key_switch), split
  // outputs: relinearization and a rotation, 64- and 32-bit words.
  check<u64>({"radix2_compact_group16_smem8", 12, 60, 10, 10, 4, false, false, true, 40, 0, true});
  check<u64>({"radix16_compact", 12, 60, 5, 5, 2, true, false, false, 0, 0, true});
  check<std::uint32_t>({"radix4_compact", 12, 28, 6, 3, 2, true, false, true, 0, 0, true});
}

// Several rotations from one region (launch_region_key_products): the
// hoisted kernel's phases on the NTT emulator's passes (each digit's own Q
// rows skipped), every step's split outputs against the complete forward
// transform of every digit and each step's key product; 64-bit words (the
// default preset's 40-bit Q and 60-bit P rows, ten digits: rounds of ten)
// and 32-bit words (six digits, two tiles a block), logN 12 and 11, four
// steps with conjugation among them.
template <typename Word>
void check_hoisted(const char* backend_name, int log_n, int bits, int narrow_bits, int digit_count, int q_rows,
                   int p_rows, const std::vector<std::uint64_t>& elements) {
  SCOPED_TRACE(::testing::Message() << backend_name << " logN " << log_n << ", " << digit_count << " digits, "
                                    << elements.size() << " steps");
  FusedInputs<Word> in(backend_name, log_n, bits, narrow_bits, digit_count, q_rows, p_rows, true,
                       5000 + log_n + digit_count);
  const std::size_t n = in.n, rows = in.rows;
  const ntt::gpu::PassArgs<Word>& region = in.region;

  // A key, table and split output per step.
  const std::size_t steps = elements.size();
  std::vector<std::vector<u64>> keys(steps), outs_b(steps), outs_a(steps), p_blocks(steps);
  std::vector<std::vector<std::uint8_t>> packed(steps);
  std::vector<std::vector<std::uint32_t>> tables(steps);
  std::vector<cuda::RotationTerm> terms(steps);
  std::vector<cuda::TermOutput> outs(steps);
  for (std::size_t t = 0; t < steps; ++t) {
    std::tie(keys[t], packed[t]) = in.random_key();
    tables[t] = galois_ntt_permutation(elements[t], log_n);
    outs_b[t].assign(rows * n, 0);
    outs_a[t].assign(rows * n, 0);
    p_blocks[t].assign(2 * static_cast<std::size_t>(p_rows) * n, 0);
    terms[t] = {packed[t].data(), tables[t].data(), nullptr, 0};
    outs[t] = {outs_b[t].data(), outs_a[t].data(), p_blocks[t].data(), false};
  }
  const cuda::ExtendedSumArgs s = in.sum_args();

  const unsigned tiles = cuda::fused_tiles_per_block(digit_count, log_n);
  cuda::RegionKeyProductArgs<Word> f{region, {}, s, {}, tiles, 0};
  f.term_count = static_cast<std::uint32_t>(steps);
  for (std::size_t t = 0; t < steps; ++t) {
    f.terms[t] = terms[t];
    f.outs[t] = outs[t];
    f.inverse_galois[t] = cuda::galois_inverse(elements[t], log_n);
  }
  const auto grid_x = static_cast<std::uint32_t>((n >> ntt::gpu::kTileBits) / tiles);
  const auto threads = static_cast<std::uint32_t>(tiles * in.digits * ntt::gpu::kThreadsPerTile);
  std::mt19937_64 garbage(7);
  ntt::gpu::with_region_variant(region.stage_count, region.address.consecutive, [&]<int Skip, bool Consecutive>() {
    emulate<Word, Skip, Consecutive, false>(
        f, grid_x, static_cast<std::uint32_t>(rows), threads, garbage,
        [&](const Word* shared, std::uint32_t x, std::uint32_t y, std::uint32_t t) {
          if (cuda::fused_digits_per_round(digit_count) == 10) {
            cuda::fused_key_products<Word, 10>(f, shared, x, y, t, threads);
          } else {
            cuda::fused_key_products<Word, 5>(f, shared, x, y, t, threads);
          }
        });
  });

  for (std::size_t t = 0; t < steps; ++t) {
    std::size_t mismatches = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t id = kFirstRow + r;
      const u64 q = in.moduli[id];
      const bool q_row = r < static_cast<std::size_t>(q_rows);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t source = tables[t][k];
        u64 b = in.key_product(keys[t], 0, r, k, source);
        const u64 a = in.key_product(keys[t], 1, r, k, source);
        if (q_row) b = add(b, mul(in.p_mod_q[id], in.c0[r * n + source], q), q);
        const std::size_t p_row = r - static_cast<std::size_t>(q_rows);
        const u64 got_b = q_row ? outs_b[t][r * n + k] : p_blocks[t][p_row * n + k];
        const u64 got_a = q_row ? outs_a[t][r * n + k] : p_blocks[t][(p_rows + p_row) * n + k];
        mismatches += (got_b != b) + (got_a != a);
      }
    }
    EXPECT_EQ(mismatches, 0u) << "step " << t << ", g = " << elements[t];
  }
}

TEST(RegionKeyProductEmulation, HoistedRotationsFromOneRegion) {
  for (const int log_n : {12, 11}) {
    std::vector<std::uint64_t> elements;
    for (const int step : {1, 2, 5}) elements.push_back(galois_element_for_step(step, log_n));
    elements.push_back(conjugation_galois_element(log_n));
    check_hoisted<u64>("radix2_compact_group16_smem8", log_n, 60, 40, 10, 10, 2, elements);
    check_hoisted<std::uint32_t>("radix4_compact", 12, 28, 0, 6, 6, 2, {elements[0], elements[3]});
  }
  // g^-1 mod 2N.
  for (const int log_n : {8, 16}) {
    for (const int step : {1, 3, -7}) {
      const std::uint64_t g = galois_element_for_step(step, log_n);
      EXPECT_EQ((g * cuda::galois_inverse(g, log_n)) & ((std::uint64_t{2} << log_n) - 1), 1u);
    }
  }
}

// Five digits over 3 Q + 2 P rows at logN 12: what the launchers check
// before anything is enqueued.
cuda::ExtendedSumArgs small_sum_args() {
  cuda::ExtendedSumArgs args;
  args.digits = 5;
  args.q_rows = 3;
  args.rows = 5;
  args.log_n = 12;
  return args;
}

// A launch over rows outside the level's extended rows, or over none, is
// refused before anything is enqueued (no GPU needed).
TEST(RegionKeyProductLaunch, RefusesRowsOutsideTheExtendedRows) {
  const cuda::ExtendedSumArgs args = small_sum_args();
  for (const ntt::RowRange rows : {ntt::RowRange{4, 2}, ntt::RowRange{0, 0}, ntt::RowRange{5, 1}}) {
    try {
      cuda::launch_region_key_product({}, {}, args, {}, nullptr, rows);
      ADD_FAILURE() << "rows " << rows.first << " + " << rows.count << " were launched";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("of 5 extended rows"), std::string::npos) << e.what();
    }
  }
}

// Several-rotation launches refuse, before anything is enqueued (no GPU
// needed), a term count outside 2 to kMaxFusedTerms, element or output
// counts that differ from it, and a term that is not a rotation by a key
// into its own output.
TEST(RegionKeyProductLaunch, RefusesTermsThatAreNotHoistedRotations) {
  const cuda::ExtendedSumArgs args = small_sum_args();
  const std::uint8_t key[8] = {};
  const std::uint32_t table[1] = {};
  const cuda::RotationTerm rotation{key, table, nullptr, 0};
  const std::uint64_t odd = galois_element_for_step(1, 12);
  const auto refused = [&](std::vector<cuda::RotationTerm> terms, std::vector<std::uint64_t> elements,
                           std::vector<cuda::TermOutput> outs, const char* why) {
    try {
      cuda::launch_region_key_products({}, terms, elements, args, outs, nullptr);
      ADD_FAILURE() << why << ": launched";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("launch_region_key_products"), std::string::npos) << why << ": " << e.what();
    }
  };
  const cuda::TermOutput out{};
  refused({rotation}, {odd}, {out}, "one term");
  refused(std::vector<cuda::RotationTerm>(cuda::kMaxFusedTerms + 1, rotation),
          std::vector<std::uint64_t>(cuda::kMaxFusedTerms + 1, odd),
          std::vector<cuda::TermOutput>(cuda::kMaxFusedTerms + 1, out), "too many terms");
  refused({rotation, rotation}, {odd}, {out, out}, "fewer Galois elements");
  refused({rotation, rotation}, {odd, odd}, {out}, "fewer outputs");
  refused({rotation, {nullptr, table, nullptr, 0}}, {odd, odd}, {out, out}, "a term without a key");
  refused({rotation, {key, nullptr, nullptr, 0}}, {odd, odd}, {out, out}, "a term without a table");
  refused({rotation, rotation}, {odd, 2}, {out, out}, "an even Galois element");
  refused({rotation, rotation}, {odd, odd}, {out, {nullptr, nullptr, nullptr, true}}, "an accumulated output");
  const std::uint64_t plain[1] = {};
  refused({rotation, {key, table, plain, 0}}, {odd, odd}, {out, out}, "a plaintext factor");
}

}  // namespace
}  // namespace fhe
