// Build facts captured by CMake (configure time) and git (build time).
#include "fhe/core/build_info.h"

#include "fhelium_build_config.h"
#include "fhelium_git_state.h"

namespace fhe {

const BuildInfo& build_info() {
  static const BuildInfo info = [] {
    BuildInfo b;
    b.version = FHELIUM_VERSION;
    b.git_commit = FHELIUM_GIT_COMMIT;
    b.git_dirty = FHELIUM_GIT_DIRTY;
    b.build_type = FHELIUM_BUILD_TYPE;
    b.cxx_compiler = FHELIUM_CXX_COMPILER;
    b.cxx_flags = FHELIUM_CXX_FLAGS;
    b.cuda_compiler = FHELIUM_CUDA_COMPILER;
    b.cuda_architectures = FHELIUM_CUDA_ARCHITECTURES;
    b.cuda_flags = FHELIUM_CUDA_FLAGS;
    b.cuda_built = FHELIUM_HAS_CUDA != 0;
    return b;
  }();
  return info;
}

}  // namespace fhe
