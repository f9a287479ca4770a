#include "recommend/file_bytes.h"

#include <fstream>
#include <sstream>

#include "fhe/core/error.h"

namespace fhelium {

std::string read_file_bytes(const std::filesystem::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fhe::InvalidArgument("cannot read " + (what.empty() ? "" : what + " ") + path.string());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace fhelium
