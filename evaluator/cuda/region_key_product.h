// ModUp's last forward pass fused with the key inner product of one term:
// relinearization, a single rotation (rotate, conjugate) and an extended
// sum's single rotation (BSGS giant steps). A block runs the shared-memory
// region of one or two 256-word tiles of every digit of one extended row and
// multiplies the tiles by the key in shared memory, so the transformed
// digits (digits x (Q + P) rows) are never written out and read back, and
// the key streams while other blocks compute their regions.
#pragma once

#include <optional>
#include <span>

#include <cuda_runtime_api.h>

#include "evaluator/cuda/eval_kernels.h"
#include "fhe/ntt/backend.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::cuda {

// The digit counts that take the fused path. At most 16 (16 threads and one
// padded tile each in a block): every preset's level-0 digits but the 17 of
// slots65536-scale30. At least 5: below, the key product's positions (256
// per output tile) outnumber the region's threads 4 to 16 times and the
// fused kernel lost (H200, default preset, sessions 7-8: level 0 -6 %, level
// 17 -1 to -3 %, level 33, the fewest digits measured, +20 %).
inline constexpr int kMinFusedDigits = 5;
inline constexpr int kMaxFusedDigits = 16;

// Where the term goes: over the extended rows of args' level, Q rows into
// b and a (rows x n each), P rows into p_block (b's, then a's: one batched
// ModDown transform) when it is set; otherwise every row into b and a, added
// to what they hold when `accumulate` (an extended sum).
struct TermOutput {
  std::uint64_t* b = nullptr;
  std::uint64_t* a = nullptr;
  std::uint64_t* p_block = nullptr;
  bool accumulate = false;
};

// `region`: forward_batch_before_region of the decomposition args.extended
// (args.digits blocks of args.rows rows, kMinFusedDigits to kMaxFusedDigits
// of them); the term as in launch_rotation_terms, or relinearization's: the
// key, no table (then no P c0 term). The same words as the unfused region
// + inner product. `rows` (indices into the level's extended rows, Q rows
// first) limits the launch to those output rows; nullopt: all of them.
void launch_region_key_product(const ntt::gpu::ForwardRegion& region, const RotationTerm& term,
                               const ExtendedSumArgs& args, const TermOutput& out, cudaStream_t stream,
                               std::optional<ntt::RowRange> rows = std::nullopt);

// Several rotations of one decomposition from one region (hoisted
// rotate_many_by_steps): 2 to kMaxFusedTerms rotation terms (keys, tables,
// no plaintexts) with their Galois elements, each into its own split
// output, over every extended row. A block runs the region of its input
// tiles once; each term writes the output tile that reads them (an
// automorphism's NTT permutation moves 256-word tiles whole). The same
// words as the unfused region + launch_rotation_outputs.
inline constexpr int kMaxFusedTerms = 4;
// g^-1 mod 2N for an odd Galois element g (the automorphism's inverse).
std::uint64_t galois_inverse(std::uint64_t g, int log_n);
void launch_region_key_products(const ntt::gpu::ForwardRegion& region, std::span<const RotationTerm> terms,
                                std::span<const std::uint64_t> galois_elements, const ExtendedSumArgs& args,
                                std::span<const TermOutput> outs, cudaStream_t stream);

}  // namespace fhe::cuda
