// What every CPU evaluator operation checks of its operands before it
// touches their words: the part count, a level of the engine's preset, and
// words that are that preset's (ring size N, rows level..L, or with P). Another
// preset's ciphertext, or a hand-edited level, would otherwise be read past
// the RNS basis or the key-switching buffers (the CUDA evaluator's checks
// are evaluator/cuda/operand_checks.h).
#pragma once

#include <cstddef>

#include "fhe/ckks/ciphertext.h"
#include "fhe/params/preset.h"

namespace fhe {

// Throws InvalidArgument naming `op` and the preset unless `a` has 2 to
// max_parts parts at a level of `preset`, each of N words over rows level..L
// (or level..L and the P rows: an extended sum).
void check_ciphertext(const Ciphertext& a, const char* op, const Preset& preset, std::size_t max_parts);
// The same for a plaintext's polynomial.
void check_plaintext(const Plaintext& p, const char* op, const Preset& preset);

// Checks of two operands' metadata, shared with the CUDA evaluator: one
// level; one scale (a sum's operands, to 1e-9 relative); and a product's
// scale at least a factor 2 below the level's Q modulus.
void check_same_level(int level_a, int level_b, const char* op, const Preset& preset);
void check_same_scale(double scale_a, double scale_b, const char* op, const Preset& preset, int level);
void check_scale_fits(double scale, int level, const char* op, const Preset& preset);

}  // namespace fhe
