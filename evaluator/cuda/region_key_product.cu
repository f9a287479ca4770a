// The fused ModUp region + key inner product (region_key_product.h).
#include "evaluator/cuda/region_key_product.h"

#include <stdexcept>
#include <string>

#include "evaluator/cuda/region_key_product.cuh"
#include "fhe/arith/modarith.h"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/ntt/cuda/kernels.h"

namespace fhe::cuda {
namespace {

using ntt::gpu::kPaddedTileWords;
using ntt::gpu::kThreadsPerTile;
using ntt::gpu::kTileBits;

// The three phases of region_key_product.cuh with a barrier between them:
// a warp barrier after the columns (a digit tile's 16 threads lie in one
// warp and the rows read only that tile), a block barrier before the key
// product, which reads every digit's tile.
// Register cap of 3 blocks of 256 threads (80 registers: 4 blocks of 160 an
// SM): on the H200 a cap of 128 (no spills) was no faster (session 7), 72
// and 64 (5 and 6 blocks, more spills) slower (docs/performance.md, session 28).
// Hoisted: several rotations (fused_key_products), the block's tiles its
// input tiles.
static_assert(32 % kThreadsPerTile == 0, "the warp barrier needs each digit tile's threads in one warp");
template <typename Word, int Skip, bool Consecutive, bool Galois, int DigitsPerRound, bool Hoisted = false>
__global__ void __launch_bounds__(kMaxFusedDigits * kThreadsPerTile, 3)
    region_key_product_kernel(const __grid_constant__ RegionKeyProductArgs<Word> f) {
  static_assert(!(Hoisted && Galois), "hoisted rotations read the block's own tiles");
  ntt::gpu::allow_next_kernel_launch();
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Word* shared = reinterpret_cast<Word*>(shared_bytes);
  const std::uint32_t r = fused_output_row(f.first_row, blockIdx.y, gridDim.y);
  const ntt::gpu::TileThread th = fused_tile_thread<Word, Galois>(f, blockIdx.x, r, threadIdx.x);
  digit_tile_columns<Word, Skip, Consecutive>(f, shared, th, r);
  __syncwarp();
  // The ModUp's extended rows are read once, here: their lines still in L2
  // (the passes just wrote them) are dropped instead of written back.
  if (!ntt::gpu::skipped_row(f.region, th.data_row)) {
    ntt::gpu::discard_tile_line(ntt::gpu::tile_data(f.region, th), th.lane);
  }
  digit_tile_rows<Word, Skip, Consecutive>(f, shared, th);
  __syncthreads();
  if constexpr (Hoisted) {
    fused_key_products<Word, DigitsPerRound>(f, shared, blockIdx.x, r, threadIdx.x, blockDim.x);
  } else {
    fused_key_product<Word, Galois, DigitsPerRound>(f, shared, blockIdx.x, r, threadIdx.x, blockDim.x);
  }
}

// `f` with its region, term or terms, sums and outputs; its tiles a block
// and first row set here. Several rotation terms (f.term_count > 0,
// launch_region_key_products) run the hoisted kernels.
template <typename Word>
void launch_for_word(RegionKeyProductArgs<Word> f, ntt::RowRange rows, cudaStream_t stream) {
  const ExtendedSumArgs& args = f.sum;
  const ntt::gpu::PassArgs<Word>& region = f.region;
  const unsigned tiles = fused_tiles_per_block(args.digits, args.log_n);
  f.tiles_per_block = tiles;
  f.first_row = static_cast<std::uint32_t>(rows.first);
  const bool hoisted = f.term_count > 0;
  ntt::gpu::LaunchShape shape;
  shape.grid_x = static_cast<unsigned>((std::size_t{1} << (args.log_n - kTileBits)) / tiles);
  shape.grid_y = static_cast<unsigned>(rows.count);
  shape.block = tiles * static_cast<unsigned>(args.digits) * kThreadsPerTile;
  shape.dynamic_shared_bytes =
      std::size_t{tiles} * static_cast<std::size_t>(args.digits) * kPaddedTileWords * sizeof(Word);
  using Kernel = void (*)(RegionKeyProductArgs<Word>);
  const bool galois = f.term.table != nullptr;
  const bool rounds_of_ten = fused_digits_per_round(args.digits) == 10;
  const Kernel kernel = ntt::gpu::with_region_variant(
      region.stage_count, region.address.consecutive, [&]<int Skip, bool Consecutive>() -> Kernel {
        if (hoisted) {
          return rounds_of_ten ? region_key_product_kernel<Word, Skip, Consecutive, false, 10, true>
                               : region_key_product_kernel<Word, Skip, Consecutive, false, 5, true>;
        }
        if (rounds_of_ten) {
          return galois ? region_key_product_kernel<Word, Skip, Consecutive, true, 10>
                        : region_key_product_kernel<Word, Skip, Consecutive, false, 10>;
        }
        return galois ? region_key_product_kernel<Word, Skip, Consecutive, true, 5>
                      : region_key_product_kernel<Word, Skip, Consecutive, false, 5>;
      });
  // Overlapped like the NTT passes: the blocks load their twiddles while the
  // previous pass drains.
  FHE_CUDA_CHECK(ntt::gpu::launch_overlapped(kernel, shape, stream, f));
}

// What both launchers need of the region and the decomposition.
void check_region(const ntt::gpu::ForwardRegion& region, const ExtendedSumArgs& args) {
  const int stages = static_cast<int>(region.is_wide ? region.wide.stage_count : region.narrow.stage_count);
  if (args.digits < kMinFusedDigits || args.digits > kMaxFusedDigits || !ntt::gpu::shared_region_supported(stages) ||
      args.log_n < kTileBits) {
    throw InvalidArgument("launch_region_key_product: " + std::to_string(args.digits) + " digits (" +
                          std::to_string(kMinFusedDigits) + " to " +
                          std::to_string(kMaxFusedDigits) + "), a region of " + std::to_string(stages) +
                          " stages (6 or 8), logN " + std::to_string(args.log_n));
  }
  if (region.pass_stages() != 0) {
    throw std::logic_error("launch_region_key_product: the region's blocks hold one tile of each digit, not the "
                           "pass before the region (forward_batch_before_region without leave_pass)");
  }
  const bool skips = region.is_wide ? region.wide.skip_starts : region.narrow.skip_starts;
  if (skips && !args.decomposed) {
    throw InvalidArgument("launch_region_key_product: the ModUp skipped the digits' own rows, but the decomposed "
                          "part is not given");
  }
}

}  // namespace

void launch_region_key_product(const ntt::gpu::ForwardRegion& region, const RotationTerm& term,
                               const ExtendedSumArgs& args, const TermOutput& out, cudaStream_t stream,
                               std::optional<ntt::RowRange> rows) {
  const ntt::RowRange launched = rows.value_or(ntt::RowRange{0, args.rows});
  if (launched.count == 0 || launched.first + launched.count > args.rows) {
    throw InvalidArgument("launch_region_key_product: rows " + std::to_string(launched.first) + " + " +
                          std::to_string(launched.count) + " of " + std::to_string(args.rows) + " extended rows");
  }
  check_region(region, args);
  if (region.is_wide) {
    launch_for_word(RegionKeyProductArgs<std::uint64_t>{region.wide, term, args, out}, launched, stream);
  } else {
    launch_for_word(RegionKeyProductArgs<std::uint32_t>{region.narrow, term, args, out}, launched, stream);
  }
}

std::uint64_t galois_inverse(std::uint64_t g, int log_n) {
  return inverse_mod_2_64(g) & ((std::uint64_t{2} << log_n) - 1);  // 2N divides 2^64
}

void launch_region_key_products(const ntt::gpu::ForwardRegion& region, std::span<const RotationTerm> terms,
                                std::span<const std::uint64_t> galois_elements, const ExtendedSumArgs& args,
                                std::span<const TermOutput> outs, cudaStream_t stream) {
  if (terms.size() < 2 || terms.size() > static_cast<std::size_t>(kMaxFusedTerms) ||
      galois_elements.size() != terms.size() || outs.size() != terms.size()) {
    throw InvalidArgument("launch_region_key_products: " + std::to_string(terms.size()) + " terms (2 to " +
                          std::to_string(kMaxFusedTerms) + "), " + std::to_string(galois_elements.size()) +
                          " Galois elements, " + std::to_string(outs.size()) + " outputs");
  }
  for (std::size_t t = 0; t < terms.size(); ++t) {
    if (!terms[t].key || !terms[t].table || terms[t].plain || galois_elements[t] % 2 == 0 || outs[t].accumulate) {
      throw InvalidArgument("launch_region_key_products: term " + std::to_string(t) +
                            " is not a rotation by a key into its own output");
    }
  }
  check_region(region, args);
  const auto launch = [&]<typename Word>(const ntt::gpu::PassArgs<Word>& pass) {
    RegionKeyProductArgs<Word> f{pass, {}, args, {}};
    f.term_count = static_cast<std::uint32_t>(terms.size());
    for (std::size_t t = 0; t < terms.size(); ++t) {
      f.terms[t] = terms[t];
      f.outs[t] = outs[t];
      f.inverse_galois[t] = galois_inverse(galois_elements[t], args.log_n);
    }
    launch_for_word(f, {0, args.rows}, stream);
  };
  if (region.is_wide) {
    launch(region.wide);
  } else {
    launch(region.narrow);
  }
}

}  // namespace fhe::cuda
