// The matvec's diagonals encoded as plaintexts on every host core. At
// d = 128 on the default preset, encoding them one after another (a slot
// FFT and a 39-row NTT each) was most of a CudaMatvec's construction
// (session 24 on the H200 machine: 15 s of a backend's 15-20 s of setup
// in the application suite).
#pragma once

#include <functional>
#include <span>

#include "fhe/ckks/engine.h"
#include "workloads/matvec/matvec_config.h"
#include "workloads/matvec/matvec_problem.h"

namespace fhe::workloads {

// Encodes the diagonals listed in `diagonals` (BSGS: pre-rotated by their
// giant step; lazy-moddown: over the extended rows QP, encode_extended;
// otherwise encode) and hands each to take(s, plaintext) on the calling
// thread, in the listed order. At most one plaintext per hardware thread
// is held at a time. The words are those of encoding one after another.
void encode_diagonals(const CkksEngine& engine, const MatvecProblem& problem, const MatvecConfig& config,
                      std::span<const int> diagonals, const std::function<void(int, Plaintext)>& take);

}  // namespace fhe::workloads
