// CKKS parameter presets (SPEC section 3) and the security budget check.
//
// Row order of every preset: the L scale primes (ids 0..L-1), the base prime
// (id L), then the P special primes (ids L+1..L+|P|). Level l keeps the Q
// primes with id >= l, so the rows of level l extended by P are the
// contiguous range [l, L+|P|] of the preset's rows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fhe {

enum class WordType { int64, int32 };

std::string_view word_type_name(WordType word);

struct Preset {
  std::string name;
  int log_n = 0;
  int scale_bits = 0;
  int levels = 0;     // L
  int p_count = 0;    // |P|
  WordType word = WordType::int64;
  bool test_only = false;  // small, insecure parameters for fast tests

  // Deterministically generated primes; sizes L+1 and |P|.
  std::vector<std::uint64_t> q_primes;
  std::vector<std::uint64_t> p_primes;

  std::size_t n() const { return std::size_t{1} << log_n; }
  std::size_t slots() const { return n() / 2; }
  int q_count() const { return levels + 1; }
  // Hybrid key switching: digits of |P| scale primes, the base prime alone.
  int dnum() const { return (levels + p_count - 1) / p_count + 1; }
  int base_prime_bits() const;
  int special_prime_bits() const;
  // All rows in preset order: Q primes then P primes.
  std::vector<std::uint64_t> qp_primes() const;
  std::size_t qp_rows() const { return q_primes.size() + p_primes.size(); }
  // Active Q rows at `level`: ids level..L. Throws for a level outside [0, L].
  std::size_t active_q_rows(int level) const;
  double log2_q() const;
  // log2 of the Q modulus left at `level` (rows level..L).
  double log2_q(int level) const;
  double log2_p() const;
  double log2_qp() const { return log2_q() + log2_p(); }
};

// Largest log2(QP) allowed for 128-bit security at this ring degree
// (ternary secret, sigma 3.19); 0 when the table has no entry (logN < 14).
int security_budget_bits(int log_n);

// Builds a preset from its counts and checks the budget: over-budget
// parameters throw InvalidArgument (test-only presets skip the check).
Preset make_preset(std::string name, int log_n, int scale_bits, int levels, int p_count,
                   WordType word, bool test_only);

// Throws InvalidArgument unless a hand-made preset could have come from
// make_preset: logN in 10-17, levels + 1 Q primes and p_count P primes,
// each a distinct prime = 1 mod 2N that its word's butterflies take (a
// composite "prime" made the engine's root search run for ever), and,
// unless it is test_only, log2(QP) within the security budget.
void validate_preset(const Preset& preset);
// Throws InvalidArgument when a preset that is not test_only exceeds the
// 128-bit security budget of its logN (or has none: logN below 14).
void check_security_budget(const Preset& preset);

// The sixteen production presets and the test-only ones, in table order.
const std::vector<Preset>& all_presets();
// Throws InvalidArgument naming the known presets for an unknown name.
const Preset& preset_by_name(std::string_view name);
inline constexpr std::string_view kDefaultPresetName = "slots32768-scale40-levels34-int64";

// 64-bit FNV-1a hash of the preset's primes, for provenance.
std::string preset_primes_hash(const Preset& preset);

}  // namespace fhe
