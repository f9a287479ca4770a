// Shared by the CUDA evaluator tests: the skip rule and word comparison.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "evaluator/cuda/cuda_evaluator.h"
#include "fhe/core/device_info.h"
#include "tests/support/gpu_skip.h"

namespace fhe::testing {

// Same level, scale, part count and every word.
inline ::testing::AssertionResult same_words(const Ciphertext& gpu, const Ciphertext& cpu) {
  if (gpu.level != cpu.level || gpu.scale != cpu.scale || gpu.size() != cpu.size()) {
    return ::testing::AssertionFailure() << "shape differs: level " << gpu.level << " vs " << cpu.level
                                         << ", parts " << gpu.size() << " vs " << cpu.size();
  }
  for (std::size_t p = 0; p < gpu.size(); ++p) {
    const auto& a = gpu.parts[p].words();
    const auto& b = cpu.parts[p].words();
    if (a.size() != b.size()) return ::testing::AssertionFailure() << "part " << p << " sizes differ";
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) {
        return ::testing::AssertionFailure() << "part " << p << " word " << i << " (row "
                                             << i / gpu.parts[p].n() + gpu.parts[p].first_row()
                                             << "): gpu " << a[i] << " cpu " << b[i];
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace fhe::testing
