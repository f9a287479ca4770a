// Division by the product D of some rows' primes with rounding to nearest,
// dropping those rows: x -> round(x / D) over the kept rows. Rescale drops
// the leading active prime (D = q_l); ModDown drops the P rows (D = P); the
// two at once drop both (D = P q_l). All are this one routine, on NTT-form
// input x:
//   1. the dropped rows go to coefficient form (one inverse call a range),
//   2. the centered fast basis conversion takes [x]_D (in (-D/2, D/2]) to
//      the kept primes, then one forward call,
//   3. kept row i: (x_i - conv_i) * [D^-1]_(q_i).
// x - [x]_D is the multiple of D nearest to x, so the result is round(x/D)
// exactly for one dropped prime and within (dropped primes)/2 otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "evaluator/basis_conversion.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

struct RnsScaleDown {
  // Preset row ids divided out, in the order apply() takes their rows.
  std::vector<ntt::RowRange> dropped_rows;
  ntt::RowRange kept_rows;     // preset row ids of the result
  BasisConversion dropped_to_kept;  // target offsets 0 .. kept - 1
  std::vector<std::uint64_t> inverse_mod_kept;  // [D^-1]_(q_i)
  std::vector<std::uint64_t> inverse_mod_kept_shoup;

  std::size_t dropped_count() const;

  // kept_ntt / dropped_ntt: x's rows in NTT form (the dropped ones back to
  // back in dropped_rows' order); out: kept rows in NTT form
  // (may alias kept_ntt). `scratch` grows on first use only. All transforms
  // go through `plan` (rows addressed by preset row id).
  void apply(const ntt::NttPlan& plan, const std::uint64_t* kept_ntt,
             const std::uint64_t* dropped_ntt, std::uint64_t* out,
             std::vector<std::uint64_t>& scratch) const;
};

// Throws InvalidArgument when a row lies outside the preset or is both
// dropped and kept.
RnsScaleDown make_rns_scale_down(const Preset& preset, std::vector<ntt::RowRange> dropped_rows,
                                 ntt::RowRange kept_rows);

// Throws InvalidArgument ("<op>: the <operand> is at the last level ...")
// when nothing is left to rescale to below `level` (level >= preset.levels).
void check_rescalable(const Preset& preset, int level, const char* op, const char* operand);

// The rescale of a ciphertext at `level` (< preset.levels): drops row
// `level`, keeps rows level + 1 .. L.
RnsScaleDown make_rescale(const Preset& preset, int level);
// ModDown and rescale of an extended sum at `level` (< preset.levels) in one
// division by P q_level: drops the P rows, then row `level` (apply's order),
// keeps rows level + 1 .. L.
RnsScaleDown make_mod_down_rescale(const Preset& preset, int level);

}  // namespace fhe
