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
};

// Block (x = output tile, y = extended row r), 16 threads per digit. The
// digits' tiles go through the region in shared memory, then each thread
// forms the term at a few of the tile's 256 positions. A rotation's
// outputs in one aligned 256-word tile read one aligned tile of the digits:
// position k of the bit-reversed order stands for the odd power 2 brv(k) + 1,
// whose low 9 bits, kept by the Galois map e -> g e mod 2N, are set by the
// tile index k >> 8 alone.
template <typename Word, int Skip, bool Galois>
__global__ void __launch_bounds__(kMaxFusedDigits * kThreadsPerTile, 3)
    region_key_product_kernel(const __grid_constant__ RegionKeyProductArgs<Word> f) {
  ntt::gpu::allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const ExtendedSumArgs& s = f.sum;
  const std::size_t n = std::size_t{1} << s.log_n, r = blockIdx.y;
  const std::uint32_t out_tile = blockIdx.x;
  const std::uint32_t source_tile = Galois ? f.term.table[out_tile << kTileBits] >> kTileBits : out_tile;
  ntt::gpu::TileThread th;
  th.valid = true;
  th.tile_in_block = threadIdx.x / kThreadsPerTile;  // the digit
  th.lane = threadIdx.x % kThreadsPerTile;
  th.data_row = th.tile_in_block * static_cast<std::uint32_t>(s.rows) + static_cast<std::uint32_t>(r);
  th.tile = source_tile;
  th.global_tile = (th.data_row << (s.log_n - kTileBits)) + source_tile;
  ntt::gpu::forward_columns_at<Word, Skip>(f.region, shared, th);
  __syncthreads();
  ntt::gpu::tile_rows_at<true, Word, Skip>(f.region, shared, th);
  __syncthreads();
  const TermRow row = term_row(s, r);
  const auto tile_word = [&](int d, std::size_t source_k) -> u64 {
    return shared[d * kPaddedTileWords + ntt::gpu::padded(source_k & (kTileWords - 1))];
  };
  const SplitRows out{f.out.b, f.out.a, f.out.p_block, s.q_rows, s.rows, n};
  u64* out_b = out.row_b(r);
  u64* out_a = out.row_a(r);
  for (unsigned w = threadIdx.x; w < kTileWords; w += blockDim.x) {
    const std::size_t k = (static_cast<std::size_t>(out_tile) << kTileBits) + w;
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
  const RegionKeyProductArgs<Word> f{region, term, args, out};
  ntt::gpu::LaunchShape shape;
  shape.grid_x = static_cast<unsigned>(std::size_t{1} << (args.log_n - kTileBits));
  shape.grid_y = static_cast<unsigned>(args.rows);
  shape.block = static_cast<unsigned>(args.digits) * kThreadsPerTile;
  shape.dynamic_shared_bytes = static_cast<std::size_t>(args.digits) * kPaddedTileWords * sizeof(Word);
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
  if (args.digits < 1 || args.digits > kMaxFusedDigits || !ntt::gpu::shared_region_supported(stages) ||
      args.log_n < kTileBits) {
    throw InvalidArgument("launch_region_key_product: " + std::to_string(args.digits) + " digits (1 to " +
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
