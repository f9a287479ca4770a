// Level-specific key-switch workloads (SPEC section 7): relinearization and
// rotation key switching at chosen levels, each with that level's active Q
// rows and the P rows, because rankings move as rows shrink. Inputs are
// prepared once per level; each operation is one key switch to time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "evaluator/evaluator.h"
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

class KeySwitchWorkload {
 public:
  // Needs the relinearization key and the Galois key of `rotation_step`.
  KeySwitchWorkload(CkksEngine& engine, std::vector<int> levels, int rotation_step = 1);

  // Two operations per level, relinearize then rotate, in level order.
  const std::vector<KeySwitchOperation>& operations() const { return operations_; }
  // The operation's output for the prepared input of its level.
  Ciphertext run(const KeySwitchOperation& op) const;
  // max |decrypted - expected| of the operation's output.
  double max_abs_error(const KeySwitchOperation& op, const Ciphertext& output) const;

 private:
  struct LevelInput {
    int level;
    std::vector<std::complex<double>> values;
    Ciphertext fresh;    // encryption of `values` at the level
    Ciphertext product;  // 3-part fresh * fresh, before relinearization
  };
  const LevelInput& input(int level) const;

  CkksEngine& engine_;
  std::unique_ptr<Evaluator> evaluator_;  // built once: schedules cached across runs
  int rotation_step_;
  std::vector<LevelInput> inputs_;
  std::vector<KeySwitchOperation> operations_;
};

}  // namespace fhe::workloads
