// The suites the recommender knows and their operations, available before
// any suite is built so that names and weights are validated first. The
// kernel and ckks-primitive suites time fixed operations; the application
// suite's operations follow from its workload options
// (application_operations in recommend/application_workload.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fhelium {

inline constexpr std::string_view kKernelSuite = "kernel";
inline constexpr std::string_view kPrimitiveSuite = "ckks-primitive";
inline constexpr std::string_view kApplicationSuite = "application";

const std::vector<std::string>& suite_names();
// Throws InvalidArgument naming the known suites for an unknown name.
void require_known_suite(std::string_view suite);
// The fixed operations of the kernel and ckks-primitive suites. Throws
// InvalidArgument for an unknown suite and for the application suite.
const std::vector<std::string>& suite_operations(std::string_view suite);

}  // namespace fhelium
