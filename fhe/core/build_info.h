// Facts about this build, for `fhelium info` and evidence provenance.
#pragma once

#include <string>

namespace fhe {

struct BuildInfo {
  std::string version;
  std::string git_commit;
  bool git_dirty = false;
  std::string build_type;
  std::string cxx_compiler;
  std::string cxx_flags;
  std::string cuda_compiler;       // empty without CUDA
  std::string cuda_architectures;  // e.g. "90"
  std::string cuda_flags;
  bool cuda_built = false;
};

const BuildInfo& build_info();

}  // namespace fhe
