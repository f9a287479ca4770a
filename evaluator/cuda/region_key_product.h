// ModUp's last forward pass fused with the key inner product of one term:
// relinearization, a single rotation (rotate, conjugate) and an extended
// sum's single rotation (BSGS giant steps). A block runs the shared-memory
// region of one 256-word tile of every digit of one extended row and
// multiplies the tiles by the key in shared memory, so the transformed
// digits (digits x (Q + P) rows) are never written out and read back, and
// the key streams while other blocks compute their regions.
#pragma once

#include <cuda_runtime_api.h>

#include "evaluator/cuda/eval_kernels.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::cuda {

// Digits one block holds (16 threads and one padded tile each): every
// preset's level-0 digits but the 17 of slots65536-scale30, which keep the
// unfused path.
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
// (args.digits <= kMaxFusedDigits blocks of args.rows rows); the term as in
// launch_rotation_terms, or relinearization's: the key, no table (then no
// P c0 term).
// The same words as the unfused region + inner product.
void launch_region_key_product(const ntt::gpu::ForwardRegion& region, const RotationTerm& term,
                               const ExtendedSumArgs& args, const TermOutput& out, cudaStream_t stream);

}  // namespace fhe::cuda
