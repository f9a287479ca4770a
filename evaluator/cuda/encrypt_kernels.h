// Launchers of the last step of device encryption: the key products and the
// plaintext added to the NTT-form errors, in one pass over rows x n words,
// with the host Encryptor's word arithmetic (fhe/ckks/encryptor.cpp). Each
// only enqueues on `stream`. Rows are preset row ids [first_row, first_row +
// rows); keys are indexed by row id (public key: Q rows, secret key: QP rows).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "fhe/arith/modarith.h"

namespace fhe::cuda {

// Public key (b, a): c0 <- c0 + b u + m, c1 <- c1 + a u, where c0, c1 hold
// NTT(e0), NTT(e1) and u is NTT(u).
void launch_public_key_finish(std::uint64_t* c0, std::uint64_t* c1, const std::uint64_t* u,
                              const std::uint64_t* plaintext, const std::uint64_t* key_b,
                              const std::uint64_t* key_a, std::size_t first_row, std::size_t rows, int log_n,
                              const Modulus<std::uint64_t>* moduli, cudaStream_t stream);

// Secret key s: c0 <- c0 - a s + m, where c0 holds NTT(e) and a is the
// uniform c1.
void launch_secret_key_finish(std::uint64_t* c0, const std::uint64_t* a, const std::uint64_t* plaintext,
                              const std::uint64_t* secret, std::size_t first_row, std::size_t rows, int log_n,
                              const Modulus<std::uint64_t>* moduli, cudaStream_t stream);

}  // namespace fhe::cuda
