// Run a plan on host data whatever its device: CPU plans work in place on
// the host, CUDA plans get the rows uploaded, transformed and downloaded
// (synchronously). For checks and tools, not for timed paths.
#pragma once

#include <cstdint>
#include <vector>

#include "fhe/ntt/backend.h"

namespace fhe::ntt {

enum class Direction { forward, inverse };

// `data` holds rows.count x N words and is transformed in place.
void transform_on_host_data(const NttPlan& plan, std::vector<std::uint64_t>& data, RowRange rows,
                            Direction direction);

// Random words, uniform in [0, q) for each row's modulus, from a seeded generator.
std::vector<std::uint64_t> random_rows(const NttPlan& plan, RowRange rows, std::uint64_t seed);

}  // namespace fhe::ntt
