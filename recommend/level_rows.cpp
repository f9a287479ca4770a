// The rows of a level, as the suites' timed boundaries state them.
#include "recommend/level_rows.h"

#include "evaluator/key_switch_schedule.h"

namespace fhelium {

std::string level_rows_text(const fhe::Preset& preset, int level) {
  return "level " + std::to_string(level) + " (" + std::to_string(preset.active_q_rows(level)) + " Q rows in " +
         std::to_string(fhe::active_key_switch_digits(preset, level).size()) +
         " key-switching digits; key switching adds " + std::to_string(preset.p_primes.size()) + " P rows)";
}

}  // namespace fhelium
