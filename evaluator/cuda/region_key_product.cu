// The fused ModUp region + key inner product (region_key_product.h).
#include "evaluator/cuda/region_key_product.h"

#include <string>

#include "evaluator/cuda/key_terms.cuh"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/shared_region.cuh"

namespace fhe::cuda {
namespace {

using namespace terms;
using ntt::gpu::kPaddedTileWords;
using ntt::gpu::kThreadsPerTile;
using ntt::gpu::kTileBits;
using ntt::gpu::kTileWords;

template <typename Word>
struct RegionKeyProductArgs {
  ntt::gpu::PassArgs<Word> region;
  RotationTerm term;
  ExtendedSumArgs sum;
  TermOutput out;
  unsigned tiles_per_block;  // output tiles of one row per block
};

// Output tiles per block: as many as keep the block within 16 digit tiles
// (a power of two, so it divides a row's tiles): two for 5 to 8 digits
// (level 17 of the default preset: relinearize 0.4165 -> 0.4128 ms, rotate
// 0.4187 -> 0.4154 ms on the H200, against one tile a block).
unsigned fused_tiles_per_block(int digits, int log_n) {
  unsigned tiles = 1;
  while (2 * tiles * static_cast<unsigned>(digits) <= static_cast<unsigned>(kMaxFusedDigits) &&
         2 * tiles <= (1u << (log_n - kTileBits))) {
    tiles *= 2;
  }
  return tiles;
}

// Block (x = a run of tiles_per_block output tiles, y = extended row r), 16
// threads per (output tile, digit). The digits' tiles go through the region
// in shared memory, then each thread forms the term at some of the block's
// positions. A rotation's outputs in one aligned 256-word tile read one
// aligned tile of the digits: position k of the bit-reversed order stands
// for the odd power e = 2 brv(k) + 1, whose low 9 bits are set by the tile
// index k >> 8 alone, and the low 9 bits of g e mod 2N depend only on those
// of e.
template <typename Word, int Skip, bool Galois>
__global__ void __launch_bounds__(kMaxFusedDigits * kThreadsPerTile, 3)
    region_key_product_kernel(const __grid_constant__ RegionKeyProductArgs<Word> f) {
  ntt::gpu::allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const ExtendedSumArgs& s = f.sum;
  const auto digits = static_cast<unsigned>(s.digits);
  const std::size_t n = std::size_t{1} << s.log_n, r = blockIdx.y;
  const std::uint32_t first_tile = blockIdx.x * f.tiles_per_block;
  const auto source_tile_of = [&](std::uint32_t out_tile) -> std::uint32_t {
    return Galois ? f.term.table[out_tile << kTileBits] >> kTileBits : out_tile;
  };
  ntt::gpu::TileThread th;
  th.valid = true;
  th.tile_in_block = threadIdx.x / kThreadsPerTile;  // output tile slot x digits + digit
  th.lane = threadIdx.x % kThreadsPerTile;
  const unsigned digit = th.tile_in_block % digits;
  th.data_row = digit * static_cast<std::uint32_t>(s.rows) + static_cast<std::uint32_t>(r);
  th.tile = source_tile_of(first_tile + th.tile_in_block / digits);
  th.global_tile = (th.data_row << (s.log_n - kTileBits)) + th.tile;
  ntt::gpu::forward_columns_at<Word, Skip>(f.region, shared, th);
  __syncthreads();
  ntt::gpu::tile_rows_at<true, Word, Skip>(f.region, shared, th);
  __syncthreads();
  const TermRow row = term_row(s, r);
  const SplitRows out{f.out.b, f.out.a, f.out.p_block, s.q_rows, s.rows, n};
  u64* out_b = out.row_b(r);
  u64* out_a = out.row_a(r);
  for (unsigned w = threadIdx.x; w < f.tiles_per_block * kTileWords; w += blockDim.x) {
    const Word* slot = shared + (w >> kTileBits) * digits * kPaddedTileWords;
    const auto tile_word = [&](int d, std::size_t source_k) -> u64 {
      return slot[d * kPaddedTileWords + ntt::gpu::padded(source_k & (kTileWords - 1))];
    };
    const std::size_t k = (static_cast<std::size_t>(first_tile) << kTileBits) + w;
    u64 b, a;
    rotation_term<5, Galois>(f.term, s, row, r, k, tile_word, b, a);
    if (f.out.accumulate) {
      b = add_mod(out_b[k], b, row.m.value);
      a = add_mod(out_a[k], a, row.m.value);
    }
    out_b[k] = b;
    out_a[k] = a;
  }
}

template <typename Word>
void launch_for_word(const ntt::gpu::PassArgs<Word>& region, const RotationTerm& term, const ExtendedSumArgs& args,
                     const TermOutput& out, cudaStream_t stream) {
  const unsigned tiles = fused_tiles_per_block(args.digits, args.log_n);
  const RegionKeyProductArgs<Word> f{region, term, args, out, tiles};
  ntt::gpu::LaunchShape shape;
  shape.grid_x = static_cast<unsigned>((std::size_t{1} << (args.log_n - kTileBits)) / tiles);
  shape.grid_y = static_cast<unsigned>(args.rows);
  shape.block = tiles * static_cast<unsigned>(args.digits) * kThreadsPerTile;
  shape.dynamic_shared_bytes = std::size_t{tiles} * static_cast<std::size_t>(args.digits) * kPaddedTileWords * sizeof(Word);
  using Kernel = void (*)(RegionKeyProductArgs<Word>);
  const bool galois = term.table != nullptr;
  const Kernel kernel = region.stage_count == kTileBits
                            ? (galois ? region_key_product_kernel<Word, 0, true> : region_key_product_kernel<Word, 0, false>)
                            : (galois ? region_key_product_kernel<Word, 2, true> : region_key_product_kernel<Word, 2, false>);
  // Overlapped like the NTT passes: the blocks load their twiddles while the
  // previous pass drains.
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(kernel, shape, stream, f));
}

}  // namespace

void launch_region_key_product(const ntt::gpu::ForwardRegion& region, const RotationTerm& term,
                               const ExtendedSumArgs& args, const TermOutput& out, cudaStream_t stream) {
  const int stages = static_cast<int>(region.is_wide ? region.wide.stage_count : region.narrow.stage_count);
  if (args.digits < kMinFusedDigits || args.digits > kMaxFusedDigits || !ntt::gpu::shared_region_supported(stages) ||
      args.log_n < kTileBits) {
    throw InvalidArgument("launch_region_key_product: " + std::to_string(args.digits) + " digits (" +
                          std::to_string(kMinFusedDigits) + " to " +
                          std::to_string(kMaxFusedDigits) + "), a region of " + std::to_string(stages) +
                          " stages (6 or 8), logN " + std::to_string(args.log_n));
  }
  if (region.is_wide) {
    launch_for_word(region.wide, term, args, out, stream);
  } else {
    launch_for_word(region.narrow, term, args, out, stream);
  }
}

}  // namespace fhe::cuda
