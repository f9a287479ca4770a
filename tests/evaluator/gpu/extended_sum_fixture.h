// What the host emulation tests of the key-term kernels build alike: the
// extended rows' primes (key row ids from kFirstRow: row 0 is unused, which
// exercises the offsets), the hoisted digits over those rows, the input's c0
// and c1 over the Q rows, [P]_(q) with Shoup companions, random keys of
// kFirstDigit + digits components in the device layout, and the
// ExtendedSumArgs over them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "evaluator/cuda/eval_kernels.h"
#include "evaluator/switch_key_layout.h"
#include "fhe/arith/modarith.h"

namespace fhe::testing {

struct ExtendedSumFixture {
  static constexpr std::size_t kFirstRow = 1;
  static constexpr int kFirstDigit = 1;

  // `key_moduli`: one prime a key row, kFirstRow + q_rows + P rows of them.
  ExtendedSumFixture(std::vector<std::uint64_t> key_moduli, int log_n_, std::size_t q_rows_, std::size_t digits_,
                     std::uint64_t seed)
      : log_n(log_n_),
        n(std::size_t{1} << log_n_),
        q_rows(q_rows_),
        rows(key_moduli.size() - kFirstRow),
        digits(digits_),
        key_rows(key_moduli.size()),
        rng(seed),
        moduli(std::move(key_moduli)),
        layout(switch_key_layout(moduli, n)) {
    ext.resize(digits * rows * n);
    for (std::size_t i = 0; i < ext.size(); ++i) ext[i] = random_row_word(kFirstRow + (i / n) % rows);
    for (std::vector<std::uint64_t>* part : {&c0, &c1}) {
      part->resize(q_rows * n);
      for (std::size_t i = 0; i < part->size(); ++i) (*part)[i] = random_row_word(kFirstRow + i / n);
    }
    for (std::size_t id = 0; id < key_rows; ++id) {
      p_mod_q.push_back(random_row_word(id));
      p_shoup.push_back(shoup_companion<std::uint64_t>(p_mod_q.back(), moduli[id]));
      device_moduli.emplace_back(moduli[id]);
    }
  }

  std::uint64_t random_row_word(std::size_t id) { return rng() % moduli[id]; }

  // A random key (component c, key row id at [(c key_rows + id) n + k])
  // and its device layout.
  std::pair<std::vector<std::uint64_t>, std::vector<std::uint8_t>> random_key() {
    const std::size_t components = kFirstDigit + digits;
    std::vector<std::uint64_t> key(components * 2 * key_rows * n);
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = random_row_word((i / n) % key_rows);
    std::vector<std::uint8_t> packed(components * layout.digit_bytes());
    for (std::size_t d = 0; d < components; ++d) {
      const std::span<const std::uint64_t> b = std::span(key).subspan(2 * d * key_rows * n, key_rows * n);
      const std::span<const std::uint64_t> a = std::span(key).subspan((2 * d + 1) * key_rows * n, key_rows * n);
      pack_switch_key_digit(b, a, layout, std::span(packed).subspan(d * layout.digit_bytes(), layout.digit_bytes()));
    }
    return {std::move(key), std::move(packed)};
  }

  cuda::ExtendedSumArgs sum_args() const {
    cuda::ExtendedSumArgs s;
    s.extended = ext.data();
    s.digits = static_cast<int>(digits);
    s.first_digit = kFirstDigit;
    s.key_layout = layout;
    s.c0 = c0.data();
    s.c1 = c1.data();
    s.p_mod_q = p_mod_q.data();
    s.p_mod_q_shoup = p_shoup.data();
    s.first_row = kFirstRow;
    s.q_rows = q_rows;
    s.rows = rows;
    s.log_n = log_n;
    s.moduli = device_moduli.data();
    return s;
  }

  int log_n;
  std::size_t n, q_rows, rows, digits, key_rows;
  std::mt19937_64 rng;
  std::vector<std::uint64_t> moduli, ext, c0, c1, p_mod_q, p_shoup;
  std::vector<Modulus<std::uint64_t>> device_moduli;
  SwitchKeyLayout layout;
};

}  // namespace fhe::testing
