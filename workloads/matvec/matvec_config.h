// Configuration of the encrypted matrix-vector workload (SPEC section 7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fhe::workloads {

// diagonal: y = sum_s diag_s (.) Rot(x, s) over all d cyclic diagonals.
// bsgs: baby-step giant-step, the same product with about 2 sqrt(d) rotations.
enum class MatvecMethod { diagonal, bsgs };
// batch: B products summed in the NTT domain, then one rescale per batch.
// loop: multiply, rescale and add term by term.
// lazy_moddown: every rotation stays before its ModDown, times the diagonal
// encoded over the extended rows QP, and the sum pays one division by P q_l
// (ModDown and rescale in one; double hoisting). BSGS: the baby steps stay
// so; each inner sum is rotated from that form (only its c1 brought down to
// Q for the key switch) into the sum before that final division. Fewer
// NTTs, other rounding, so the words differ from batch/loop within the
// tolerance.
enum class DiagonalPolicy { batch, loop, lazy_moddown };

struct MatvecConfig {
  int dim = 128;                       // d: the matrix is d x d
  MatvecMethod method = MatvecMethod::diagonal;
  DiagonalPolicy policy = DiagonalPolicy::batch;
  int hoist = 64;                      // rotations per hoisted decomposition
  std::optional<int> baby_steps;       // bsgs: g in [2, d]; none = automatic (bsgs_baby_steps)
  int batch = 16;                      // terms per rescale under `batch`
  int workers = 1;                     // rotation-parallel workers (threads / streams)
  std::uint64_t seed = 1;              // matrix and vector draws
};

// The --baby-steps option's help, the same for every command that takes it.
inline constexpr const char* kBabyStepsHelp =
    "bsgs: baby steps g in [2, d] (default: batch / loop the smallest power of two with g*g >= d, "
    "lazy-moddown the g of least modelled cost: 26 at d = 128)";

std::string_view method_name(MatvecMethod method);
std::string_view policy_name(DiagonalPolicy policy);
MatvecMethod parse_method(std::string_view text);    // throws InvalidArgument
DiagonalPolicy parse_policy(std::string_view text);  // throws InvalidArgument

// Checks the configuration against the slot count: d a power of two in
// [2, slots], hoist/batch/workers >= 1, baby_steps none or (bsgs only) in
// [2, d]. Throws InvalidArgument naming the field.
void validate(const MatvecConfig& config, std::size_t slots);

}  // namespace fhe::workloads
