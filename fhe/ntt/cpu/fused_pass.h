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
// Blocks at adjacent offsets share every twiddle: a pass at stride >= this
// many words transforms this many of them side by side, so each twiddle
// and each loop step serves a cache line of columns.
inline constexpr std::size_t kFusedColumns = 8;

// The g stages of one pass on `columns` adjacent blocks held column-wise in
// local[k * columns + c] (word k of block c).
template <typename Word, bool Forward, std::size_t Columns, typename Twiddle>
void fused_stages(Word* local, std::size_t span, int first_stage, int stage_count, std::size_t block, Word q,
                  Twiddle& twiddle) {
  for (int step = 0; step < stage_count; ++step) {
    // Forward visits the pass's stages first to last, inverse last to first.
    const int r = Forward ? step : stage_count - 1 - step;
    const std::size_t half = span >> (r + 1);
    const std::size_t local_groups = std::size_t{1} << r;
    for (std::size_t lg = 0; lg < local_groups; ++lg) {
      const auto [w, w_shoup] = twiddle(first_stage + r, (block << r) + lg);
      Word* top = local + 2 * lg * half * Columns;
      Word* bottom = top + half * Columns;
      for (std::size_t k = 0; k < half * Columns; ++k) {
        if constexpr (Forward) {
          forward_butterfly<Word>(top[k], bottom[k], w, w_shoup, q);
        } else {
          inverse_butterfly<Word>(top[k], bottom[k], w, w_shoup, q);
        }
      }
    }
  }
}

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
  Word local[(std::size_t{1} << kMaxFusedStages) * kFusedColumns];
  // Every offset of a block, Columns adjacent offsets at a time.
  auto run_block = [&]<std::size_t Columns>(std::size_t block) {
    std::uint64_t* base = row + block * block_size;
    for (std::size_t offset = 0; offset < stride; offset += Columns) {
      for (std::size_t k = 0; k < span; ++k) {
        for (std::size_t c = 0; c < Columns; ++c) {
          local[k * Columns + c] = static_cast<Word>(base[offset + c + k * stride]);
        }
      }
      fused_stages<Word, Forward, Columns>(local, span, first_stage, stage_count, block, q, twiddle);
      for (std::size_t k = 0; k < span; ++k) {
        for (std::size_t c = 0; c < Columns; ++c) {
          base[offset + c + k * stride] = local[k * Columns + c];
        }
      }
    }
  };
  const bool side_by_side = stride % kFusedColumns == 0;  // not the stride-1 region pass
  for (std::size_t block = 0; block < blocks; ++block) {
    if (side_by_side) {
      run_block.template operator()<kFusedColumns>(block);
    } else {
      run_block.template operator()<1>(block);
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
