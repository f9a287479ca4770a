// A whole file read as bytes: what the reports hash, parse and archive, and
// the profile command's child log.
#pragma once

#include <filesystem>
#include <string>

namespace fhelium {

// Throws InvalidArgument "cannot read [what ]PATH" when it cannot be opened.
std::string read_file_bytes(const std::filesystem::path& path, const std::string& what = "");

}  // namespace fhelium
