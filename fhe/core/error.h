// Exceptions of the library. Each carries enough context (preset, backend,
// device, level) to be printed as one clear line by the command line.
#pragma once

#include <stdexcept>
#include <string>

namespace fhe {

// Input the caller can fix: unknown names, incompatible backends, bad counts.
// The command line maps it to exit code 2.
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A device is absent, too small or failed; the message names the device.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fhe
