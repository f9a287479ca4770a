// Body of one thread of radix2_indexed: one radix-2 butterfly of one stage,
// located through the plan's explicit per-stage index table (top word and
// twiddle index, shared by all rows) rather than computed from the stage.
// The last forward stage reduces into [0, q); the inverse's stage 0 folds in
// the N^-1 scaling. A host function as well, for the emulation test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/lazy_butterfly.cuh"
#include "fhe/ntt/cuda/memory_access.cuh"

namespace fhe::ntt::gpu {

template <typename Word, bool Forward>
FHE_HD void indexed_butterfly(const IndexedStageArgs<Word>& a, std::uint32_t row,
                              std::uint32_t butterfly) {
  // A skipped row's words are not read: they may never have been written
  // (the ModUp's digits' own rows; compute-sanitizer initcheck).
  if (skipped_row(a, row)) return;
  const IndexEntry entry = a.entries[butterfly];
  const std::uint32_t half = (1u << a.log_n) >> (a.stage + 1);
  std::uint64_t* words = a.data + (static_cast<std::size_t>(row) << a.log_n);
  const std::uint32_t plan_row = plan_row_of(a, row);
  const RowConstants<Word> c = a.constants[plan_row];
  const TwiddlePair<Word> w =
      load_twiddle(a.twiddles + static_cast<std::size_t>(plan_row) * a.table_stride + entry.twiddle);
  wait_for_previous_kernel();  // the data is the previous stage's output
  Word x = static_cast<Word>(words[entry.top]);
  Word y = static_cast<Word>(words[entry.top + half]);
  if (!Forward && a.stage == 0) {
    inverse_butterfly_scaled<Word>(x, y, c);
  } else {
    if constexpr (Forward) {
      forward_butterfly<Word>(x, y, w, c.q);
      if (a.stage + 1 == a.log_n) {
        x = reduce_forward_output<Word>(x, c.q);
        y = reduce_forward_output<Word>(y, c.q);
      }
    } else {
      inverse_butterfly<Word>(x, y, w, c.q);
    }
  }
  words[entry.top] = x;
  words[entry.top + half] = y;
}

}  // namespace fhe::ntt::gpu
