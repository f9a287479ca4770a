// The preset table and deterministic prime assignment.
#include "fhe/params/preset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

#include "fhe/arith/modarith.h"
#include "fhe/arith/primes.h"
#include "fhe/core/error.h"

namespace fhe {

std::string_view word_type_name(WordType word) {
  return word == WordType::int64 ? "int64" : "int32";
}

int Preset::base_prime_bits() const { return word == WordType::int64 ? 60 : 28; }
int Preset::special_prime_bits() const { return base_prime_bits(); }

std::vector<std::uint64_t> Preset::qp_primes() const {
  std::vector<std::uint64_t> rows = q_primes;
  rows.insert(rows.end(), p_primes.begin(), p_primes.end());
  return rows;
}

std::size_t Preset::active_q_rows(int level) const {
  if (level < 0 || level > levels) {
    throw InvalidArgument("level " + std::to_string(level) + " is outside [0, " +
                          std::to_string(levels) + "] for preset " + name);
  }
  return static_cast<std::size_t>(levels + 1 - level);
}

static double log2_sum(std::span<const std::uint64_t> primes) {
  double total = 0;
  for (std::uint64_t p : primes) total += std::log2(static_cast<double>(p));
  return total;
}

double Preset::log2_q() const { return log2_sum(q_primes); }
double Preset::log2_q(int level) const {
  return log2_sum(std::span(q_primes).last(active_q_rows(level)));
}
double Preset::log2_p() const { return log2_sum(p_primes); }

int security_budget_bits(int log_n) {
  switch (log_n) {
    case 14: return 430;
    case 15: return 868;
    case 16: return 1747;
    case 17: return 3523;
    default: return 0;
  }
}

Preset make_preset(std::string name, int log_n, int scale_bits, int levels, int p_count,
                   WordType word, bool test_only) {
  if (log_n < 10 || log_n > 17) {
    throw InvalidArgument("preset " + name + ": logN " + std::to_string(log_n) +
                          " is outside the supported range 10-17");
  }
  if (levels < 1 || p_count < 1) {
    throw InvalidArgument("preset " + name + ": needs at least one level and one special prime");
  }
  const int word_limit = word == WordType::int64 ? 62 : 30;
  if (scale_bits < 20 || scale_bits > word_limit - 2) {
    throw InvalidArgument("preset " + name + ": scale of " + std::to_string(scale_bits) +
                          " bits does not fit the " + std::string(word_type_name(word)) +
                          " word");
  }
  Preset preset;
  preset.name = std::move(name);
  preset.log_n = log_n;
  preset.scale_bits = scale_bits;
  preset.levels = levels;
  preset.p_count = p_count;
  preset.word = word;
  preset.test_only = test_only;

  const std::uint64_t two_n = std::uint64_t{2} << log_n;
  const int wide_bits = preset.base_prime_bits();
  // Base and special primes: the largest available below 2^wide_bits.
  std::vector<std::uint64_t> wide = largest_ntt_primes(wide_bits, 1 + p_count, two_n, {});
  preset.q_primes = balanced_ntt_primes(scale_bits, levels, two_n, wide);
  preset.q_primes.push_back(wide[0]);
  preset.p_primes.assign(wide.begin() + 1, wide.end());

  check_security_budget(preset);
  return preset;
}

void check_security_budget(const Preset& preset) {
  const int budget = security_budget_bits(preset.log_n);
  if (!preset.test_only && (budget == 0 || preset.log2_qp() > budget)) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer,
                  "preset %s: log2(QP) = %.1f bits exceeds the 128-bit security budget of %d "
                  "bits at logN %d",
                  preset.name.c_str(), preset.log2_qp(), budget, preset.log_n);
    throw InvalidArgument(buffer);
  }
}

void validate_preset(const Preset& preset) {
  const std::string where = "preset " + preset.name + ": ";
  if (preset.log_n < 10 || preset.log_n > 17) {
    throw InvalidArgument(where + "logN " + std::to_string(preset.log_n) + " is outside the supported range 10-17");
  }
  const bool counts = preset.levels >= 1 && preset.p_count >= 1 &&
                      preset.q_primes.size() == static_cast<std::size_t>(preset.levels) + 1 &&
                      preset.p_primes.size() == static_cast<std::size_t>(preset.p_count);
  if (!counts) {
    throw InvalidArgument(where + std::to_string(preset.q_primes.size()) + " Q and " +
                          std::to_string(preset.p_primes.size()) + " P primes for " + std::to_string(preset.levels) +
                          " levels and " + std::to_string(preset.p_count) + " special primes (at least one each)");
  }
  const int max_bits = preset.word == WordType::int64 ? WordTraits<std::uint64_t>::max_modulus_bits
                                                      : WordTraits<std::uint32_t>::max_modulus_bits;
  const std::uint64_t two_n = std::uint64_t{2} << preset.log_n;
  const std::vector<std::uint64_t> primes = preset.qp_primes();
  for (std::size_t i = 0; i < primes.size(); ++i) {
    const std::uint64_t q = primes[i];
    if (q >= (std::uint64_t{1} << max_bits) || q % two_n != 1 || !is_prime(q) ||
        std::find(primes.begin(), primes.begin() + static_cast<std::ptrdiff_t>(i), q) != primes.begin() + i) {
      throw InvalidArgument(where + "modulus " + std::to_string(q) + " (row " + std::to_string(i) +
                            ") is not a distinct prime = 1 mod 2N below 2^" + std::to_string(max_bits));
    }
  }
  check_security_budget(preset);
}

const std::vector<Preset>& all_presets() {
  static const std::vector<Preset> presets = [] {
    struct Row {
      int log_n, scale_bits, levels, p_count;
      WordType word;
      bool test_only;
    };
    using enum WordType;
    static constexpr Row kRows[] = {
        {14, 30, 9, 1, int64, false},  {14, 40, 7, 1, int64, false},
        {14, 50, 5, 1, int64, false},  {15, 30, 21, 2, int64, false},
        {15, 40, 16, 2, int64, false}, {15, 50, 12, 2, int64, false},
        {16, 30, 45, 4, int64, false}, {16, 40, 34, 4, int64, false},
        {16, 50, 27, 4, int64, false}, {17, 30, 95, 6, int64, false},
        {17, 40, 72, 6, int64, false}, {17, 50, 58, 6, int64, false},
        {14, 25, 14, 1, int32, false}, {15, 25, 29, 2, int32, false},
        {16, 25, 24, 4, int32, false}, {17, 25, 14, 6, int32, false},
        // Test-only: small rings for fast tests, insecure by design.
        {10, 40, 3, 1, int64, true},   {11, 40, 4, 2, int64, true},
        {12, 40, 6, 2, int64, true},   {13, 40, 8, 2, int64, true},
        {12, 25, 4, 2, int32, true},
    };
    std::vector<Preset> out;
    for (const Row& row : kRows) {
      std::string name = std::string(row.test_only ? "test-" : "") + "slots" +
                         std::to_string((1 << row.log_n) / 2) + "-scale" +
                         std::to_string(row.scale_bits) + "-levels" + std::to_string(row.levels) +
                         "-" + std::string(word_type_name(row.word));
      out.push_back(make_preset(std::move(name), row.log_n, row.scale_bits, row.levels,
                                row.p_count, row.word, row.test_only));
    }
    return out;
  }();
  return presets;
}

const Preset& preset_by_name(std::string_view name) {
  for (const Preset& preset : all_presets()) {
    if (preset.name == name) return preset;
  }
  std::string known;
  for (const Preset& preset : all_presets()) {
    if (!preset.test_only) known += (known.empty() ? "" : ", ") + preset.name;
  }
  throw InvalidArgument("unknown preset '" + std::string(name) + "' (known: " + known + ")");
}

std::string preset_primes_hash(const Preset& preset) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (std::uint64_t prime : preset.qp_primes()) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= (prime >> (8 * byte)) & 0xff;
      hash *= 1099511628211ULL;
    }
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

}  // namespace fhe
