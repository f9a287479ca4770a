#include "recommend/file_bytes.h"

#include <fstream>
#include <sstream>

#include "fhe/core/error.h"

namespace fhelium {

std::string read_file_bytes(const std::filesystem::path& path, const std::string& what) {
  const std::string name = (what.empty() ? "" : what + " ") + path.string();
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw fhe::InvalidArgument("cannot read " + name + ": a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fhe::InvalidArgument("cannot read " + name);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace fhelium
