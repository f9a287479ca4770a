// Suite names and operations (SPEC section 5).
#include "recommend/suite_catalog.h"

#include <algorithm>

#include "fhe/core/error.h"

namespace fhelium {

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {
      std::string(kKernelSuite), std::string(kPrimitiveSuite), std::string(kApplicationSuite)};
  return names;
}

void require_known_suite(std::string_view suite) {
  const auto& names = suite_names();
  if (std::find(names.begin(), names.end(), suite) != names.end()) return;
  std::string known;
  for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
  throw fhe::InvalidArgument("unknown suite '" + std::string(suite) + "' (known: " + known + ")");
}

const std::vector<std::string>& suite_operations(std::string_view suite) {
  static const std::vector<std::string> kernel = {"forward_ntt", "inverse_ntt", "roundtrip"};
  static const std::vector<std::string> primitive = {
      "encrypt_message", "decrypt_message", "multiply_relinearize", "rotate_with_key",
      "rotate_many_by_steps[4]"};
  if (suite == kKernelSuite) return kernel;
  if (suite == kPrimitiveSuite) return primitive;
  require_known_suite(suite);
  throw fhe::InvalidArgument("the operations of the " + std::string(suite) +
                             " suite depend on its workload options");
}

}  // namespace fhelium
