// Building the per-level key-switch schedule and its cache.
#include "evaluator/key_switch_schedule.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "fhe/arith/modarith.h"
#include "fhe/ckks/keys.h"
#include "fhe/core/error.h"

namespace fhe {

std::vector<ActiveDigit> active_key_switch_digits(const Preset& preset, int level) {
  const std::size_t first = static_cast<std::size_t>(level);
  preset.active_q_rows(level);  // validates the level
  std::vector<ActiveDigit> active;
  const auto digits = key_switch_digits(preset);
  for (std::size_t j = 0; j < digits.size(); ++j) {
    const std::size_t begin = std::max(digits[j].first, first);
    const std::size_t end = digits[j].first + digits[j].count;
    if (begin < end) active.push_back({static_cast<int>(j), {begin, end - begin}});  // else dropped at this level
  }
  return active;
}

KeySwitchSchedule make_key_switch_schedule(const Preset& preset, int level) {
  const std::size_t q_rows = preset.active_q_rows(level);  // validates the level
  const std::size_t first = static_cast<std::size_t>(level);
  const std::vector<std::uint64_t> primes = preset.qp_primes();

  KeySwitchSchedule s;
  s.preset_name = preset.name;
  s.level = level;
  s.active_q_rows = {first, q_rows};
  s.p_rows = {preset.q_primes.size(), preset.p_primes.size()};
  s.extended_rows = ntt::level_rows(preset, level);

  for (const ActiveDigit& active : active_key_switch_digits(preset, level)) {
    const std::size_t begin = active.q_rows.first, end = active.q_rows.first + active.q_rows.count;
    KeySwitchDigit digit;
    digit.index = active.index;
    digit.q_rows = active.q_rows;
    std::vector<std::uint64_t> targets;
    std::vector<std::size_t> offsets;
    for (std::size_t id = s.extended_rows.first; id < s.extended_rows.first + s.extended_rows.count; ++id) {
      if (id >= begin && id < end) continue;
      targets.push_back(primes[id]);
      offsets.push_back(id - first);
    }
    digit.mod_up = make_basis_conversion(
        std::vector<std::uint64_t>(primes.begin() + begin, primes.begin() + end), targets,
        std::move(offsets));
    s.digits.push_back(std::move(digit));
  }
  s.mod_down = make_rns_scale_down(preset, {s.p_rows}, s.active_q_rows);
  for (std::size_t id = first; id < first + q_rows; ++id) {
    std::uint64_t p_mod = 1;
    for (std::uint64_t p : preset.p_primes) p_mod = mul_mod_exact(p_mod, p % primes[id], primes[id]);
    s.p_mod_q.push_back(p_mod);
    s.p_mod_q_shoup.push_back(shoup_companion(p_mod, primes[id]));
  }
  // The key inner product sums one 128-bit product per digit before reducing.
  double max_bits = 0;
  for (std::uint64_t q : primes) max_bits = std::max(max_bits, std::log2(static_cast<double>(q)));
  if (2 * max_bits + std::log2(static_cast<double>(s.digits.size())) >= 127.5) {
    throw InvalidArgument("preset " + preset.name + ": " + std::to_string(s.digits.size()) +
                          " digits of " + std::to_string(max_bits) +
                          "-bit primes overflow the 128-bit key inner product");
  }
  return s;
}

KeySwitchScheduleCache::KeySwitchScheduleCache(const Preset& preset)
    : preset_(preset), by_level_(static_cast<std::size_t>(preset.levels) + 1) {}

const KeySwitchSchedule& KeySwitchScheduleCache::at(int level) const {
  preset_.active_q_rows(level);  // validates the level with the preset's message
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = by_level_[static_cast<std::size_t>(level)];
  if (!slot) slot = std::make_unique<KeySwitchSchedule>(make_key_switch_schedule(preset_, level));
  return *slot;
}

}  // namespace fhe
