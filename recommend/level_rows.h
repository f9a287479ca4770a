// How the suites' timed boundaries name the rows an operation works on at a
// level: its active Q rows, the key-switching digits they form, and the P
// rows key switching adds (SPEC section 7: rankings move as rows shrink).
#pragma once

#include <string>

#include "fhe/params/preset.h"

namespace fhelium {

// "level L (N Q rows in D key-switching digits; key switching adds P P rows)".
// Throws InvalidArgument for a level outside the preset.
std::string level_rows_text(const fhe::Preset& preset, int level);

}  // namespace fhelium
