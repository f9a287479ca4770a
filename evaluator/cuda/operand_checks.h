// The CUDA evaluator's operand checks, shared by its operation files: each
// failure is one InvalidArgument naming the operation, preset and level.
#pragma once

#include <cstddef>
#include <string>

#include "evaluator/cuda/cuda_ciphertext.h"
#include "fhe/ckks/engine.h"

namespace fhe::cuda {

// "op (preset P, level l)", the tail of the evaluator's messages.
std::string where(const CkksEngine& engine, const char* op, int level);

// Operands at one level and, for a sum, at one scale; for a product, a
// scale with room below the level's modulus (the CPU evaluator's checks,
// evaluator/operand_checks.h).
enum class Combination { sum, product };
void check_binary(const CudaCiphertext& a, const CudaCiphertext& b, const char* op, const CkksEngine& engine,
                  Combination combination);

// A ciphertext of low..high parts.
void check_parts(const CudaCiphertext& a, std::size_t low, std::size_t high, const char* op,
                 const CkksEngine& engine);

}  // namespace fhe::cuda
