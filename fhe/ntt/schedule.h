// The factorization of one transform into passes, per backend and logN.
//
// Stages are numbered in forward (Cooley-Tukey) order: stage s has butterfly
// half-size t = N >> (s + 1), so stage 0 has the largest stride and the last
// stage has t = 1. The forward transform runs the passes in order; the
// inverse (Gentleman-Sande) runs them in reverse order, each pass's stages
// also reversed. CPU and CUDA implementations and `ntt describe` all read
// this one description.
#pragma once

#include <string_view>
#include <vector>

namespace fhe::ntt {

enum class PassKind {
  global_stage,   // one radix-2 stage over global memory (radix2_indexed)
  global_group,   // several radix-2 stages fused in registers (compact groupG)
  global_digit,   // one strict radix-R digit (radixR_compact)
  shared_region,  // the trailing stages fused in one shared-memory tile
};

std::string_view pass_kind_name(PassKind kind);

struct NttPass {
  PassKind kind;
  int first_stage;  // forward stage index of the pass's first stage
  int stage_count;  // radix-2 stages covered by the pass
  // Strict radix digits fused in this pass (1 for a global digit, H for the
  // shared region of a strict backend, 0 for radix-2 backends).
  int digit_count = 0;
};

struct NttSchedule {
  int log_n = 0;
  std::vector<NttPass> passes;  // forward order
};

}  // namespace fhe::ntt
