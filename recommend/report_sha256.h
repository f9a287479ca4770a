// SHA-256 (FIPS 180-4) of bytes and of files, for the hashes a deployment
// policy and a report archive record of the evidence they rest on. Written
// here so that the tool needs no crypto library for one digest.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fhelium {

// Lower-case hex digest (64 characters).
std::string sha256_hex(std::string_view bytes);

// Reads the whole file; throws InvalidArgument when it cannot be read.
std::string sha256_file_hex(const std::filesystem::path& path);

}  // namespace fhelium
