// One fused pass of g consecutive radix-2 stages on the host: each block of
// 2^g words at stride N >> (first_stage + g) is loaded into a local array,
// transformed through the g stages and stored back. Grouped passes, strict
// radix digits and the trailing 256-word region (g = 8, stride 1) are all
// this loop; backends differ in how they split stages into passes and where
// they read twiddles (the `twiddle` callable).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cpu/butterflies.h"
#include "fhe/ntt/schedule.h"

namespace fhe::ntt {

inline constexpr int kMaxFusedStages = 8;

// twiddle(stage, group) -> std::pair<Word, Word> (value, Shoup companion)
// for the forward (or inverse) twiddle of that global stage and group.
template <typename Word, bool Forward, typename Twiddle>
void fused_pass(std::uint64_t* row, int log_n, int first_stage, int stage_count, Word q,
                Twiddle&& twiddle) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t span = std::size_t{1} << stage_count;  // words per local block
  const std::size_t stride = n >> (first_stage + stage_count);
  const std::size_t block_size = n >> first_stage;
  const std::size_t blocks = std::size_t{1} << first_stage;
  Word local[std::size_t{1} << kMaxFusedStages];

  for (std::size_t block = 0; block < blocks; ++block) {
    std::uint64_t* base = row + block * block_size;
    for (std::size_t offset = 0; offset < stride; ++offset) {
      for (std::size_t k = 0; k < span; ++k) local[k] = static_cast<Word>(base[offset + k * stride]);
      for (int step = 0; step < stage_count; ++step) {
        // Forward visits the pass's stages first to last, inverse last to first.
        const int r = Forward ? step : stage_count - 1 - step;
        const std::size_t half = span >> (r + 1);
        const std::size_t local_groups = std::size_t{1} << r;
        for (std::size_t lg = 0; lg < local_groups; ++lg) {
          const auto [w, w_shoup] = twiddle(first_stage + r, (block << r) + lg);
          Word* top = local + 2 * lg * half;
          for (std::size_t k = 0; k < half; ++k) {
            if constexpr (Forward) {
              forward_butterfly<Word>(top[k], top[k + half], w, w_shoup, q);
            } else {
              inverse_butterfly<Word>(top[k], top[k + half], w, w_shoup, q);
            }
          }
        }
      }
      for (std::size_t k = 0; k < span; ++k) base[offset + k * stride] = local[k];
    }
  }
}

// Final reductions shared by the fused backends: forward [0,4q) -> [0,q);
// inverse scales by N^-1 and reduces.
template <typename Word, typename Tables>
void finish_forward(std::uint64_t* row, std::size_t n, const Tables& t) {
  for (std::size_t j = 0; j < n; ++j) row[j] = reduce_from_4q<Word>(static_cast<Word>(row[j]), t.q);
}

template <typename Word, typename Tables>
void finish_inverse(std::uint64_t* row, std::size_t n, const Tables& t) {
  for (std::size_t j = 0; j < n; ++j) {
    row[j] = mul_shoup<Word>(static_cast<Word>(row[j]), t.n_inverse, t.n_inverse_shoup, t.q);
  }
}

// A whole transform of one row by the passes of `schedule` (reversed for the
// inverse), then the final reduction or N^-1 scaling.
template <typename Word, bool Forward, typename Tables, typename Twiddle>
void run_fused_schedule(std::uint64_t* row, const NttSchedule& schedule, const Tables& t,
                        Twiddle&& twiddle) {
  const auto& passes = schedule.passes;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const NttPass& pass = passes[Forward ? i : passes.size() - 1 - i];
    fused_pass<Word, Forward>(row, schedule.log_n, pass.first_stage, pass.stage_count, t.q,
                              twiddle);
  }
  const std::size_t n = std::size_t{1} << schedule.log_n;
  if constexpr (Forward) {
    finish_forward<Word>(row, n, t);
  } else {
    finish_inverse<Word>(row, n, t);
  }
}

}  // namespace fhe::ntt
