// The CUDA evaluator's operand checks (operand_checks.h).
#include "evaluator/cuda/operand_checks.h"

#include <algorithm>
#include <cmath>

#include "fhe/core/error.h"

namespace fhe::cuda {

std::string where(const CkksEngine& engine, const char* op, int level) {
  return std::string(op) + " (preset " + engine.preset().name + ", level " + std::to_string(level) + ")";
}

void check_binary(const CudaCiphertext& a, const CudaCiphertext& b, const char* op, const CkksEngine& engine,
                  bool same_scale) {
  if (a.level != b.level) {
    throw InvalidArgument(std::string(op) + ": operands at levels " + std::to_string(a.level) + " and " +
                          std::to_string(b.level) + " (preset " + engine.preset().name +
                          "); drop_level the one at the lower level first");
  }
  if (same_scale && std::fabs(a.scale - b.scale) > 1e-9 * std::max(a.scale, b.scale)) {
    throw InvalidArgument(std::string(op) + ": operand scales differ (" + where(engine, op, a.level) + ")");
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
