// Device selection: "cpu" or "cuda:N".
#pragma once

#include <string>
#include <string_view>

namespace fhe {

enum class DeviceKind { cpu, cuda };

struct DeviceSpec {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;  // CUDA ordinal; 0 for the CPU

  std::string str() const { return kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(index); }
  bool operator==(const DeviceSpec&) const = default;
};

// Parses "cpu" or "cuda:N" (N a non-negative integer); throws InvalidArgument otherwise.
// Presence of the CUDA device is checked where it is used, not here.
DeviceSpec parse_device(std::string_view text);

}  // namespace fhe
