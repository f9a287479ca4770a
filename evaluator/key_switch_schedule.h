// The level-specific schedule of hybrid key switching (SPEC section 3), a
// plain data object that the CPU evaluator, later GPU code and the
// key-switch workloads share.
//
// At level l the active Q rows are ids l..L, the P rows ids L+1..L+|P|,
// and the extended rows [l, L+|P|] form one contiguous range of the plan.
// Active digits: every digit with an id >= l, keeping only its active ids.
// Key switching of c (NTT form, rows l..L):
//   1. c to coefficient form (one inverse call over the active Q rows);
//   2. per digit: ModUp = copy the digit's rows + fast basis conversion to
//      every other extended row, then ONE forward call over extended_rows;
//   3. inner product with the key rows [l, L+|P|] of every digit;
//   4. ModDown: divide by P with rounding (mod_down) -> rows l..L.
// Before step 4 a key-switched term is P times what it stands for, over the
// extended rows; p_mod_q lifts a Q-row polynomial into that form (P x, zero
// on the P rows), so sums of such terms can share one ModDown.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "evaluator/basis_conversion.h"
#include "evaluator/rns_scale_down.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

struct KeySwitchDigit {
  int index = 0;            // digit j of the preset layout (key component j)
  ntt::RowRange q_rows;     // the digit's active Q row ids
  // Digit rows -> every other extended row; target offsets are rows of the
  // extended buffer (row id - level).
  BasisConversion mod_up;
};

struct KeySwitchSchedule {
  std::string preset_name;
  int level = 0;
  ntt::RowRange active_q_rows;   // ids level..L
  ntt::RowRange p_rows;          // ids L+1..L+|P|
  ntt::RowRange extended_rows;   // ids level..L+|P|
  std::vector<KeySwitchDigit> digits;  // active digits, in digit order
  RnsScaleDown mod_down;         // extended rows -> active Q rows (divides by P)
  std::vector<std::uint64_t> p_mod_q;        // [P]_(q_i) per active Q row
  std::vector<std::uint64_t> p_mod_q_shoup;  // their Shoup companions
};

// The digits active at `level` (those with an id >= level), in digit
// order, each with its index and only its active ids (no conversion):
// what a schedule's `digits` hold, for reports that need only the count.
struct ActiveDigit {
  int index = 0;
  ntt::RowRange q_rows;
};
std::vector<ActiveDigit> active_key_switch_digits(const Preset& preset, int level);

// Throws InvalidArgument for a level outside [0, L].
KeySwitchSchedule make_key_switch_schedule(const Preset& preset, int level);

// Schedules built on first use per level and kept (thread-safe lookup).
class KeySwitchScheduleCache {
 public:
  explicit KeySwitchScheduleCache(const Preset& preset);
  const KeySwitchSchedule& at(int level) const;

 private:
  const Preset& preset_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<KeySwitchSchedule>> by_level_;
};

}  // namespace fhe
