// Host-data transforms and random inputs for checks.
#include "fhe/ntt/host_transform.h"

#include <random>

#if FHELIUM_HAS_CUDA
#include "fhe/ntt/cuda/cuda_plans.h"
#endif
#include "fhe/core/error.h"

namespace fhe::ntt {

void transform_on_host_data(const NttPlan& plan, std::vector<std::uint64_t>& data, RowRange rows,
                            Direction direction) {
  if (data.size() != rows.count * plan.n()) {
    throw InvalidArgument("host data holds " + std::to_string(data.size()) + " words, expected " +
                          std::to_string(rows.count * plan.n()));
  }
  if (plan.device().kind == DeviceKind::cpu) {
    if (direction == Direction::forward) {
      plan.forward(data.data(), rows);
    } else {
      plan.inverse(data.data(), rows);
    }
    return;
  }
#if FHELIUM_HAS_CUDA
  cuda_transform_host_data(plan, data, rows, direction == Direction::forward);
#else
  throw DeviceError("a CUDA plan exists in a build without CUDA");
#endif
}

std::vector<std::uint64_t> random_rows(const NttPlan& plan, RowRange rows, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::vector<std::uint64_t> data(rows.count * plan.n());
  for (std::size_t i = 0; i < rows.count; ++i) {
    std::uniform_int_distribution<std::uint64_t> word(0, plan.moduli()[rows.first + i] - 1);
    for (std::size_t j = 0; j < plan.n(); ++j) data[i * plan.n() + j] = word(generator);
  }
  return data;
}

}  // namespace fhe::ntt
