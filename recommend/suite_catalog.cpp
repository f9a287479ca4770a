// Suite names and operations (SPEC section 5).
#include "recommend/suite_catalog.h"

#include "fhe/core/error.h"

namespace fhelium {

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {std::string(kKernelSuite),
                                                 std::string(kPrimitiveSuite)};
  return names;
}

const std::vector<std::string>& suite_operations(std::string_view suite) {
  static const std::vector<std::string> kernel = {"forward_ntt", "inverse_ntt", "roundtrip"};
  static const std::vector<std::string> primitive = {
      "encrypt_message", "decrypt_message", "multiply_relinearize", "rotate_with_key",
      "rotate_many_by_steps[4]"};
  if (suite == kKernelSuite) return kernel;
  if (suite == kPrimitiveSuite) return primitive;
  throw fhe::InvalidArgument("unknown suite '" + std::string(suite) + "' (known: kernel, ckks-primitive)");
}

}  // namespace fhelium
