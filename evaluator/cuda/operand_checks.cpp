// The CUDA evaluator's operand checks (operand_checks.h).
#include "evaluator/cuda/operand_checks.h"

#include "evaluator/operand_checks.h"
#include "fhe/core/error.h"

namespace fhe::cuda {

std::string where(const CkksEngine& engine, const char* op, int level) {
  return std::string(op) + " (preset " + engine.preset().name + ", level " + std::to_string(level) + ")";
}

void check_binary(const CudaCiphertext& a, const CudaCiphertext& b, const char* op, const CkksEngine& engine,
                  Combination combination) {
  const Preset& preset = engine.preset();
  check_same_level(a.level, b.level, op, preset);
  if (combination == Combination::sum) {
    check_same_scale(a.scale, b.scale, op, preset, a.level);
  } else {
    check_scale_fits(a.scale * b.scale, a.level, op, preset);
  }
}

void check_parts(const CudaCiphertext& a, std::size_t low, std::size_t high, const char* op,
                 const CkksEngine& engine) {
  if (a.parts < low || a.parts > high) {
    throw InvalidArgument(std::string(op) + ": a ciphertext of " + std::to_string(a.parts) + " parts (" +
                          where(engine, op, a.level) + ")");
  }
  // Its rows are max_rows - level: a level outside the preset's would
  // address words past the buffer.
  if (a.level < 0 || a.level > engine.preset().levels) {
    throw InvalidArgument(std::string(op) + ": level outside 0.." + std::to_string(engine.preset().levels) + " (" +
                          where(engine, op, a.level) + ")");
  }
}

}  // namespace fhe::cuda
