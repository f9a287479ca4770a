// Executes hybrid key switching along a KeySwitchSchedule on the CPU, with
// reusable buffers (no allocation once they have grown). Split in two so a
// hoisted multi-rotation extends once and applies many keys:
//   extend():    c -> coefficient form -> per digit ModUp + one NTT call
//   apply_key(): inner product of the extended digits (optionally permuted
//                by a Galois NTT table) with a key, then ModDown.
// apply_key() is inner_product() + mod_down(); callers that sum several
// key-switched terms before one ModDown (double hoisting) use the halves.
// Not thread-safe: one KeySwitcher per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "evaluator/key_switch_schedule.h"
#include "fhe/ckks/keys.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ckks/rns_poly.h"
#include "fhe/ntt/backend.h"

namespace fhe {

class KeySwitcher {
 public:
  KeySwitcher(const RnsBasis& basis, const ntt::NttPlan& plan);

  // `input`: NTT form over the schedule's active Q rows.
  void extend(const KeySwitchSchedule& schedule, const RnsPoly& input);

  // Uses the digits of the last extend() (same schedule). With
  // `galois_table`, digit d contributes sigma_g(ext_d) (out[k] = ext[table[k]]).
  // out0/out1 become NTT-form polynomials over the active Q rows with
  // out0 + out1 s ~ input * s' (s' the key's source secret).
  void apply_key(const KeySwitchSchedule& schedule, const KeySwitchKey& key,
                 const std::vector<std::uint32_t>* galois_table, RnsPoly& out0, RnsPoly& out1);

  // The inner product alone: out0/out1 (extended_rows x N words each, NTT
  // form) with out0 + out1 s ~ P * input * s' over the extended rows.
  void inner_product(const KeySwitchSchedule& schedule, const KeySwitchKey& key,
                     const std::vector<std::uint32_t>* galois_table, std::uint64_t* out0,
                     std::uint64_t* out1);
  // ModDown of an extended pair (extended_rows x N words each, not modified)
  // to NTT-form polynomials over the active Q rows.
  void mod_down(const KeySwitchSchedule& schedule, const std::uint64_t* extended0,
                const std::uint64_t* extended1, RnsPoly& out0, RnsPoly& out1);
  // The same for one polynomial.
  void mod_down(const KeySwitchSchedule& schedule, const std::uint64_t* extended, RnsPoly& out);

 private:
  const RnsBasis& basis_;
  const ntt::NttPlan& plan_;
  std::vector<std::uint64_t> coefficients_;  // input, coefficient form
  std::vector<std::uint64_t> extended_;      // digits x extended rows x N
  std::vector<std::uint64_t> accumulators_;  // 2 x extended rows x N
  std::vector<std::uint64_t> conversion_scratch_;
  std::vector<std::uint64_t> scale_down_scratch_;
  int extended_level_ = -1;                  // level of the last extend()
  std::vector<unsigned __int128> row_sums_;  // 2 x N exact inner-product sums of one row
};

}  // namespace fhe
