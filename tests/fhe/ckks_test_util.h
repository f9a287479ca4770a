// Helpers shared by the CKKS tests: random messages and error measures.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

namespace fhe::testing {

// Random complex slots of magnitude in [0.02, 1] with uniform phase.
inline std::vector<std::complex<double>> random_message(std::size_t slots, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> magnitude(0.02, 1.0), phase(0, 2 * M_PI);
  std::vector<std::complex<double>> out(slots);
  for (auto& v : out) v = std::polar(magnitude(rng), phase(rng));
  return out;
}

inline double max_abs_error(const std::vector<std::complex<double>>& got,
                            const std::vector<std::complex<double>>& expected) {
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, std::abs(got[i] - expected[i]));
  return worst;
}

}  // namespace fhe::testing
