// `fhelium ntt describe`: per-kernel launch shapes and resources of one
// transform. Filled in by the CUDA NTT work; until then it reports the
// schedule only and says that kernel figures need a CUDA build.
#include <iostream>

#include "recommend/cli/commands.h"

namespace fhelium::cli {

void add_ntt_describe_command(CLI::App& ntt) {
  (void)ntt;
}

}  // namespace fhelium::cli
