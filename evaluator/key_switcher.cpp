// ModUp, key inner product and ModDown of hybrid key switching.
#include "evaluator/key_switcher.h"

#include <algorithm>
#include <string>

#include "fhe/core/error.h"

namespace fhe {

KeySwitcher::KeySwitcher(const RnsBasis& basis, const ntt::NttPlan& plan)
    : basis_(basis), plan_(plan) {}

void KeySwitcher::extend(const KeySwitchSchedule& schedule, const RnsPoly& input) {
  const std::size_t n = plan_.n();
  const ntt::RowRange q_rows = schedule.active_q_rows;
  if (!input.ntt_form() || input.n() != n || input.first_row() != q_rows.first || input.row_count() != q_rows.count) {
    throw InvalidArgument("key switching at level " + std::to_string(schedule.level) + " (preset " +
                          schedule.preset_name + "): input must be NTT form over rows " +
                          std::to_string(q_rows.first) + ".." + std::to_string(q_rows.first + q_rows.count - 1) +
                          " of N = " + std::to_string(n) + " words");
  }
  const std::size_t extended_words = schedule.extended_rows.count * n;
  coefficients_.assign(input.data(), input.data() + q_rows.count * n);
  plan_.inverse(coefficients_.data(), q_rows);
  if (extended_.size() < schedule.digits.size() * extended_words) {
    extended_.resize(schedule.digits.size() * extended_words);
  }
  for (std::size_t d = 0; d < schedule.digits.size(); ++d) {
    const KeySwitchDigit& digit = schedule.digits[d];
    std::uint64_t* extended = extended_.data() + d * extended_words;
    const std::uint64_t* digit_rows = coefficients_.data() + (digit.q_rows.first - q_rows.first) * n;
    std::copy_n(digit_rows, digit.q_rows.count * n,
                extended + (digit.q_rows.first - schedule.extended_rows.first) * n);
    if (conversion_scratch_.size() < digit.q_rows.count * n) {
      conversion_scratch_.resize(digit.q_rows.count * n);
    }
    digit.mod_up.convert(digit_rows, extended, conversion_scratch_.data(), n);
    plan_.forward(extended, schedule.extended_rows);
  }
  extended_level_ = schedule.level;
}

void KeySwitcher::apply_key(const KeySwitchSchedule& schedule, const KeySwitchKey& key,
                            const std::vector<std::uint32_t>* galois_table, RnsPoly& out0,
                            RnsPoly& out1) {
  const std::size_t extended_words = schedule.extended_rows.count * plan_.n();
  if (accumulators_.size() < 2 * extended_words) accumulators_.resize(2 * extended_words);
  std::uint64_t* acc0 = accumulators_.data();
  std::uint64_t* acc1 = acc0 + extended_words;
  inner_product(schedule, key, galois_table, acc0, acc1);
  mod_down(schedule, acc0, acc1, out0, out1);
}

void KeySwitcher::inner_product(const KeySwitchSchedule& schedule, const KeySwitchKey& key,
                                const std::vector<std::uint32_t>* galois_table, std::uint64_t* acc0,
                                std::uint64_t* acc1) {
  const std::size_t n = plan_.n();
  const ntt::RowRange extended_rows = schedule.extended_rows;
  const std::size_t extended_words = extended_rows.count * n;
  const std::size_t digits = schedule.digits.size();
  if (extended_level_ != schedule.level) {
    throw InvalidArgument("key switching at level " + std::to_string(schedule.level) + " (preset " +
                          schedule.preset_name + "): the extended digits are from level " +
                          std::to_string(extended_level_) + " (call extend first)");
  }
  if (key.components.size() < static_cast<std::size_t>(schedule.digits.back().index) + 1) {
    throw InvalidArgument("key switching at level " + std::to_string(schedule.level) + " (preset " +
                          schedule.preset_name + "): the key has " +
                          std::to_string(key.components.size()) + " components");
  }

  if (row_sums_.size() < 2 * n) row_sums_.resize(2 * n);
  unsigned __int128* sum_b = row_sums_.data();
  unsigned __int128* sum_a = sum_b + n;
  for (std::size_t r = 0; r < extended_rows.count; ++r) {
    const std::size_t id = extended_rows.first + r;
    // Digit by digit over the whole row keeps every access sequential (the
    // Galois gather stays within one row); 128-bit sums stay exact (the
    // schedule checks digits * max(q)^2 < 2^128), one reduction per word.
    std::fill_n(sum_b, 2 * n, 0);
    for (std::size_t d = 0; d < digits; ++d) {
      const KeySwitchComponent& component = key.components[schedule.digits[d].index];
      const std::uint64_t* ext = extended_.data() + d * extended_words + r * n;
      const std::uint64_t* key_b = component.b.row(id);
      const std::uint64_t* key_a = component.a.row(id);
      if (galois_table) {
        const std::uint32_t* table = galois_table->data();
        for (std::size_t k = 0; k < n; ++k) {
          const std::uint64_t x = ext[table[k]];
          sum_b[k] += static_cast<unsigned __int128>(x) * key_b[k];
          sum_a[k] += static_cast<unsigned __int128>(x) * key_a[k];
        }
      } else {
        for (std::size_t k = 0; k < n; ++k) {
          sum_b[k] += static_cast<unsigned __int128>(ext[k]) * key_b[k];
          sum_a[k] += static_cast<unsigned __int128>(ext[k]) * key_a[k];
        }
      }
    }
    const Modulus<std::uint64_t>& q = basis_.modulus(id);
    std::uint64_t* out_b = acc0 + r * n;
    std::uint64_t* out_a = acc1 + r * n;
    for (std::size_t k = 0; k < n; ++k) {
      out_b[k] = reduce_wide<std::uint64_t>(static_cast<std::uint64_t>(sum_b[k] >> 64),
                                            static_cast<std::uint64_t>(sum_b[k]), q);
      out_a[k] = reduce_wide<std::uint64_t>(static_cast<std::uint64_t>(sum_a[k] >> 64),
                                            static_cast<std::uint64_t>(sum_a[k]), q);
    }
  }
}

void KeySwitcher::mod_down(const KeySwitchSchedule& schedule, const std::uint64_t* extended0,
                           const std::uint64_t* extended1, RnsPoly& out0, RnsPoly& out1) {
  mod_down(schedule, extended0, out0);
  mod_down(schedule, extended1, out1);
}

void KeySwitcher::mod_down(const KeySwitchSchedule& schedule, const std::uint64_t* extended, RnsPoly& out) {
  const std::size_t n = plan_.n();
  const ntt::RowRange q_rows = schedule.active_q_rows;
  const std::size_t p_offset = (schedule.p_rows.first - schedule.extended_rows.first) * n;
  if (out.first_row() != q_rows.first || out.row_count() != q_rows.count || out.n() != n) {
    out = RnsPoly(q_rows.first, q_rows.count, n, true);
  }
  out.set_ntt_form(true);
  schedule.mod_down.apply(plan_, extended, extended + p_offset, out.data(), scale_down_scratch_);
}

}  // namespace fhe
