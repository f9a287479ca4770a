// What the level-specific key-switch workloads compute, whatever runs them
// (the CPU KeySwitchWorkload, the CUDA CudaKeySwitchWorkload): the operation
// list, the level list, the inputs drawn from the engine's seed and the
// reference every output is checked against. Relinearization and rotation
// are measured at chosen levels (SPEC section 7) because rankings move as
// the active Q rows shrink while the P rows stay.
#pragma once

#include <complex>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/engine.h"

namespace fhe::workloads {

enum class KeySwitchKind { relinearize, rotate };

struct KeySwitchOperation {
  KeySwitchKind kind;
  int level;
  std::string name() const;  // e.g. "relinearize@level17"
};

// The operations of a workload over `levels`, in its order: relinearize
// then rotate, level by level. Known before any engine exists, so that a
// benchmark can validate operation names first.
std::vector<KeySwitchOperation> key_switch_operations(const std::vector<int>& levels);

// "0,17,33" -> {0, 17, 33}: sorted, unique, each in [0, L-1] (a level must
// keep two Q rows for the product's rescale to exist). Throws InvalidArgument.
std::vector<int> parse_levels(std::string_view text, int levels);

// A rotation step that is a multiple of the slot count is the identity: no
// Galois key and no key switch to measure. Throws InvalidArgument.
void check_rotation_step(int step, std::size_t slots);

// One operation's output against the reference: the largest slot error and
// the slot where it occurs, for a failing backend's record.
struct KeySwitchError {
  double max_abs_error = 0;
  std::size_t worst_slot = 0;
  std::complex<double> decrypted, expected;
};

class KeySwitchProblem {
 public:
  struct LevelInput {
    int level;
    std::vector<std::complex<double>> values;  // slot values, (re, im) uniform in [-1, 1]
    Ciphertext fresh;                          // encrypt_message(values, level)
  };

  // Throws InvalidArgument for a step check_rotation_step refuses, when the
  // engine lacks the relinearization key or the Galois key of
  // `rotation_step`, or when a level is out of range. Draws
  // the slot values from std::mt19937_64(engine.seed() + 101), level by
  // level in the given order, and encrypts each at its level (the engine's
  // next encryptions): the same engine seed and call sequence give the same
  // words on every backend and device.
  KeySwitchProblem(CkksEngine& engine, const std::vector<int>& levels, int rotation_step);

  // The key checks alone, for callers that must refuse before any work.
  static void require_keys(const CkksEngine& engine, int rotation_step);

  const std::vector<KeySwitchOperation>& operations() const { return operations_; }
  const std::vector<LevelInput>& inputs() const { return inputs_; }
  // The input of `level`; InvalidArgument when the problem has none.
  const LevelInput& input(int level) const;
  // Position of `level` in inputs().
  std::size_t input_index(int level) const;
  int rotation_step() const { return rotation_step_; }

  // What slot `slot` of the operation's output should decrypt to: the
  // square of the input slot (relinearization of fresh * fresh) or the
  // input slot `step` places to the right (left rotation).
  std::complex<double> expected(const KeySwitchOperation& op, std::size_t slot) const;
  // Decrypts `output` and compares every slot with expected().
  KeySwitchError error(const KeySwitchOperation& op, const Ciphertext& output) const;
  double max_abs_error(const KeySwitchOperation& op, const Ciphertext& output) const {
    return error(op, output).max_abs_error;
  }

 private:
  const CkksEngine& engine_;
  int rotation_step_;
  std::vector<LevelInput> inputs_;
  std::vector<KeySwitchOperation> operations_;
};

}  // namespace fhe::workloads
