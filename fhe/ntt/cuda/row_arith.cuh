// The choice between a row's two arithmetics, made once per thread at the
// top of a kernel body: the body is instantiated for both (generic lambda)
// and each row takes the one its tables were built for.
#pragma once

#include "fhe/ntt/cuda/fp64_arith.cuh"
#include "fhe/ntt/cuda/kernel_params.h"
#include "fhe/ntt/cuda/lazy_butterfly.cuh"

namespace fhe::ntt::gpu {

template <typename Word, typename Body>
FHE_HD void with_row_arith(const RowConstants<Word>& c, Body&& body) {
  if constexpr (sizeof(Word) == 8) {
    if (c.fp64 != 0) {
      body(Fp64Arith(c));
      return;
    }
  }
  body(IntegerArith<Word>{c.q});
}

}  // namespace fhe::ntt::gpu
