// The fused ModUp region + key product's thread bodies (the kernel in
// region_key_product.cu), in three phases separated by block barriers:
// the region's columns and rows (digit_tile_columns and digit_tile_rows:
// the NTT's forward_columns_at and tile_rows_at on the thread's
// fused_tile_thread), then fused_key_product.
// FHE_HD, so the host emulation test
// (tests/evaluator/gpu/region_key_product_emulation_test.cpp) runs them
// thread by thread and CI checks their indexing without a GPU.
#pragma once

#include <cstdint>

#include "evaluator/cuda/key_terms.cuh"
#include "evaluator/cuda/region_key_product.h"
#include "fhe/ntt/cuda/shared_region.cuh"
#include "fhe/ntt/twiddles.h"

namespace fhe::cuda {

template <typename Word>
struct RegionKeyProductArgs {
  ntt::gpu::PassArgs<Word> region;
  RotationTerm term;
  ExtendedSumArgs sum;
  TermOutput out;
  unsigned tiles_per_block = 0;  // output tiles of one row per block
  std::uint32_t first_row = 0;  // the launch's output rows: first_row + blockIdx.y
  // Several rotations (launch_region_key_products; `term` and `out` then
  // unused): a block's tiles are input tiles, and term i writes outs[i]'s
  // output tiles that read them, found by g^-1 mod 2N (inverse_galois[i]).
  std::uint32_t term_count = 0;
  RotationTerm terms[kMaxFusedTerms]{};
  TermOutput outs[kMaxFusedTerms]{};
  std::uint64_t inverse_galois[kMaxFusedTerms]{};
};

// The low `bits` bits of x in reverse order (ntt::bit_reverse on the host).
FHE_HD std::uint32_t reverse_low_bits(std::uint32_t x, int bits) {
#if defined(__CUDA_ARCH__)
  return __brev(x) >> (32 - bits);
#else
  return ntt::bit_reverse(x, bits);
#endif
}

// The output tile whose words an automorphism X -> X^g reads from input
// tile `input_tile`: the tile of the NTT index the inverse automorphism
// sends the tile's first index to (fhe/ckks/galois.h: index p holds the
// odd exponent 2 br(p) + 1). Every word of that output tile reads this
// input tile (Galois.NttPermutationMovesTilesWhole).
FHE_HD std::uint32_t galois_output_tile(std::uint64_t g_inverse, std::uint32_t input_tile, int log_n) {
  const std::uint32_t j = reverse_low_bits(input_tile << ntt::gpu::kTileBits, log_n);
  const std::uint64_t e = (g_inverse * (2 * std::uint64_t{j} + 1)) & ((std::uint64_t{2} << log_n) - 1);
  return reverse_low_bits(static_cast<std::uint32_t>(e >> 1), log_n) >> ntt::gpu::kTileBits;
}

// Output tiles per block: as many as keep the block within 16 digit tiles
// (a power of two, so it divides a row's tiles): two for 5 to 8 digits
// (level 17 of the default preset: relinearize 0.4165 -> 0.4128 ms, rotate
// 0.4187 -> 0.4154 ms on the H200, against one tile a block).
FHE_HD unsigned fused_tiles_per_block(int digits, int log_n) {
  unsigned tiles = 1;
  while (2 * tiles * static_cast<unsigned>(digits) <= static_cast<unsigned>(kMaxFusedDigits) &&
         2 * tiles <= (1u << (log_n - ntt::gpu::kTileBits))) {
    tiles *= 2;
  }
  return tiles;
}

// The extended row of launch row block_y: extended rows from the last of
// the launch's (the wide rows, the base prime and P, four times a narrow
// row's products, start first instead of forming the tail).
FHE_HD std::uint32_t fused_output_row(std::uint32_t first_row, std::uint32_t block_y, std::uint32_t grid_y) {
  return first_row + ntt::gpu::last_first(block_y, grid_y);
}

// Block (x = a run of tiles_per_block output tiles, y = extended row r), 16
// threads per (output tile, digit): thread t works on digit tile
// t / 16 = slot x digits + digit. A rotation's outputs in one aligned
// 256-word tile read one aligned tile of the digits: position k of the
// bit-reversed order stands for the odd power e = 2 brv(k) + 1, whose low 9
// bits are set by the tile index k >> 8 alone, and the low 9 bits of
// g e mod 2N depend only on those of e.
template <typename Word, bool Galois>
FHE_HD ntt::gpu::TileThread fused_tile_thread(const RegionKeyProductArgs<Word>& f, std::uint32_t block_x,
                                              std::uint32_t r, std::uint32_t thread) {
  const auto digits = static_cast<std::uint32_t>(f.sum.digits);
  const std::uint32_t out_tile = block_x * f.tiles_per_block + thread / ntt::gpu::kThreadsPerTile / digits;
  ntt::gpu::TileThread th;
  th.valid = true;
  th.tile_in_block = thread / ntt::gpu::kThreadsPerTile;
  th.lane = thread % ntt::gpu::kThreadsPerTile;
  th.data_row = (th.tile_in_block % digits) * static_cast<std::uint32_t>(f.sum.rows) + r;
  th.tile = Galois ? f.term.table[out_tile << ntt::gpu::kTileBits] >> ntt::gpu::kTileBits : out_tile;
  th.global_tile = (th.data_row << (f.sum.log_n - ntt::gpu::kTileBits)) + th.tile;
  return th;
}

// Phases 1 and 2 of a thread's digit tile: the region's forward transform,
// or, in a digit's own row (which the ModUp's passes skipped), the
// decomposed part's NTT-form words there, the transform's very output.
template <typename Word, int Skip, bool Consecutive>
FHE_HD void digit_tile_columns(const RegionKeyProductArgs<Word>& f, Word* shared, const ntt::gpu::TileThread& th,
                               std::uint32_t r) {
  if (!ntt::gpu::skipped_row(f.region, th.data_row)) {
    ntt::gpu::forward_columns_at<Word, Skip, Consecutive>(f.region, shared, th);
    return;
  }
  ntt::gpu::wait_for_previous_kernel();  // the part may be the previous kernel's output
  const terms::u64* tile = f.sum.decomposed + (static_cast<std::size_t>(r) << f.sum.log_n) +
                           (static_cast<std::size_t>(th.tile) << ntt::gpu::kTileBits);
  Word* own = shared + th.tile_in_block * ntt::gpu::kPaddedTileWords;
#pragma unroll
  for (int k = 0; k < ntt::gpu::kWordsPerThread; ++k) {
    const std::uint32_t w = th.lane + ntt::gpu::kThreadsPerTile * k;
    own[ntt::gpu::padded(w)] = static_cast<Word>(tile[w]);
  }
}

template <typename Word, int Skip, bool Consecutive>
FHE_HD void digit_tile_rows(const RegionKeyProductArgs<Word>& f, Word* shared, const ntt::gpu::TileThread& th) {
  if (!ntt::gpu::skipped_row(f.region, th.data_row)) {
    ntt::gpu::tile_rows_at<true, Word, Skip, Consecutive>(f.region, shared, th);
  }
}

// Digits a thread of phase 3 loads together: ten, the default preset's
// level 0 in one memory round trip a word, when there are ten or more;
// otherwise five, as unpredicated rounds of ten would leave 5-9 digits to
// the one-by-one tail. On the H200 (session 18, rounds of ten against
// five): level 0 multiply_relinearize -1.6 %, rotate_with_key -2.6 %;
// level 17 (6 digits) +1.6 to +2.2 % with ten, hence five there.
FHE_HD constexpr int fused_digits_per_round(int digits) { return digits >= 10 ? 10 : 5; }

// Phase 3 of one term: its products at positions thread, thread +
// block_threads, ... of the block's tiles, from the transformed digit tiles
// in shared memory; out_tile(i) is the output tile that reads the block's
// digit-tile slot i.
static_assert(kMaxFusedDigits <= terms::kMaxSplitSumDigits, "the narrow rows' 64-bit sums");
template <typename Word, bool Galois, int DigitsPerRound, typename OutTile>
FHE_HD void fused_term_product(const RegionKeyProductArgs<Word>& f, const RotationTerm& term, const TermOutput& to,
                               const Word* shared, OutTile&& out_tile, std::uint32_t r, std::uint32_t thread,
                               std::uint32_t block_threads) {
  using terms::u64;
  const ExtendedSumArgs& s = f.sum;
  const auto digits = static_cast<unsigned>(s.digits);
  const std::size_t n = std::size_t{1} << s.log_n;
  const terms::TermRow row = terms::term_row(s, r);
  const terms::SplitRows out{to.b, to.a, to.p_block, s.q_rows, s.rows, n};
  u64* out_b = out.row_b(r);
  u64* out_a = out.row_a(r);
  for (unsigned w = thread; w < f.tiles_per_block * ntt::gpu::kTileWords; w += block_threads) {
    const Word* slot = shared + (w >> ntt::gpu::kTileBits) * digits * ntt::gpu::kPaddedTileWords;
    const auto tile_word = [&](int d, std::size_t source_k) -> u64 {
      return slot[d * ntt::gpu::kPaddedTileWords + ntt::gpu::padded(source_k & (ntt::gpu::kTileWords - 1))];
    };
    const std::size_t k = (static_cast<std::size_t>(out_tile(w >> ntt::gpu::kTileBits)) << ntt::gpu::kTileBits) +
                          (w & (ntt::gpu::kTileWords - 1));
    u64 b, a;
    // Narrow rows in 64-bit sums by carry chains: 107.5 M warp instructions a
    // level-0 key switch against 112.6 M with 128-bit products, the time the
    // same (the products wait on the key loads; docs/performance.md, session 32).
    terms::rotation_term<DigitsPerRound, false, Galois, DigitsPerRound, terms::NarrowSums::chained>(
        term, s, row, r, k, tile_word, b, a);
    if (to.accumulate) {
      b = add_mod(out_b[k], b, row.m.value);
      a = add_mod(out_a[k], a, row.m.value);
    }
    out_b[k] = b;
    out_a[k] = a;
  }
}

// Phase 3: the term at the block's output tiles (those of fused_tile_thread).
template <typename Word, bool Galois, int DigitsPerRound>
FHE_HD void fused_key_product(const RegionKeyProductArgs<Word>& f, const Word* shared, std::uint32_t block_x,
                              std::uint32_t r, std::uint32_t thread, std::uint32_t block_threads) {
  const std::uint32_t first_tile = block_x * f.tiles_per_block;
  fused_term_product<Word, Galois, DigitsPerRound>(
      f, f.term, f.out, shared, [&](std::uint32_t i) { return first_tile + i; }, r, thread, block_threads);
}

// Phase 3 of several rotations: each term at the output tiles that read the
// block's input tiles (fused_tile_thread without Galois).
template <typename Word, int DigitsPerRound>
FHE_HD void fused_key_products(const RegionKeyProductArgs<Word>& f, const Word* shared, std::uint32_t block_x,
                               std::uint32_t r, std::uint32_t thread, std::uint32_t block_threads) {
  const std::uint32_t first_tile = block_x * f.tiles_per_block;
  for (std::uint32_t t = 0; t < f.term_count; ++t) {
    const std::uint64_t g_inverse = f.inverse_galois[t];
    fused_term_product<Word, true, DigitsPerRound>(
        f, f.terms[t], f.outs[t], shared,
        [&](std::uint32_t i) { return galois_output_tile(g_inverse, first_tile + i, f.sum.log_n); }, r, thread,
        block_threads);
  }
}

}  // namespace fhe::cuda
