#include "workloads/matvec/diagonal_encoding.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "fhe/core/parallel_for.h"

namespace fhe::workloads {

void encode_diagonals(const CkksEngine& engine, const MatvecProblem& problem, const MatvecConfig& config,
                      std::span<const int> diagonals, const std::function<void(int, Plaintext)>& take) {
  const int g = bsgs_baby_steps(config);
  const bool bsgs = config.method == MatvecMethod::bsgs;
  const bool extended = config.policy == DiagonalPolicy::lazy_moddown;
  // Encoding is const on the engine and writes only its own plaintext.
  const std::size_t chunk = std::max(1u, std::thread::hardware_concurrency());
  for (std::size_t first = 0; first < diagonals.size(); first += chunk) {
    const std::size_t count = std::min(chunk, diagonals.size() - first);
    std::vector<Plaintext> encoded(count);
    parallel_for(count, [&](std::size_t i) {
      const int s = diagonals[first + i];
      const std::vector<double> slots = problem.diagonal_slots(s, bsgs ? (s / g) * g : 0);
      encoded[i] = extended ? engine.encode_extended(slots) : engine.encode(slots);
    });
    for (std::size_t i = 0; i < count; ++i) take(diagonals[first + i], std::move(encoded[i]));
  }
}

}  // namespace fhe::workloads
