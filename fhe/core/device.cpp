// Parsing of device strings.
#include "fhe/core/device.h"

#include <charconv>

#include "fhe/core/error.h"

namespace fhe {

DeviceSpec parse_device(std::string_view text) {
  if (text == "cpu") return {DeviceKind::cpu, 0};
  constexpr std::string_view prefix = "cuda:";
  if (text.starts_with(prefix) && text.size() > prefix.size()) {
    std::string_view digits = text.substr(prefix.size());
    int index = -1;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (error == std::errc() && end == digits.data() + digits.size() && index >= 0) {
      return {DeviceKind::cuda, index};
    }
  }
  throw InvalidArgument("invalid device '" + std::string(text) + "' (expected 'cpu' or 'cuda:N')");
}

}  // namespace fhe
