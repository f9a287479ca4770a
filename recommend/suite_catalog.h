// The suites the recommender knows and their operations, available before
// any suite is built so that names and weights are validated first.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fhelium {

inline constexpr std::string_view kKernelSuite = "kernel";
inline constexpr std::string_view kPrimitiveSuite = "ckks-primitive";

const std::vector<std::string>& suite_names();
// Throws InvalidArgument naming the known suites for an unknown name.
const std::vector<std::string>& suite_operations(std::string_view suite);

}  // namespace fhelium
