// The CPU evaluator's operand checks (operand_checks.h).
#include "evaluator/operand_checks.h"

#include <string>

#include "fhe/core/error.h"

namespace fhe {
namespace {

std::string where(const Preset& preset, int level) {
  return "preset " + preset.name + ", level " + std::to_string(level);
}

void check_words(const RnsPoly& poly, int level, const char* op, const Preset& preset, const char* what) {
  std::size_t rows = 0;
  try {
    rows = preset.active_q_rows(level);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string(op) + ": " + what + ": " + e.what());
  }
  // Rows level..L, or with the P rows after them (an extended sum, whose
  // lazy ModDown comes later).
  const std::size_t extended = rows + preset.p_primes.size();
  if (poly.n() != preset.n() || poly.first_row() != static_cast<std::size_t>(level) ||
      (poly.row_count() != rows && poly.row_count() != extended)) {
    throw InvalidArgument(std::string(op) + ": " + what + " of N = " + std::to_string(poly.n()) + " over rows [" +
                          std::to_string(poly.first_row()) + ", " + std::to_string(poly.end_row()) +
                          ") is not one of " + where(preset, level) + " (N = " + std::to_string(preset.n()) +
                          ", rows [" + std::to_string(level) + ", " + std::to_string(level + rows) + ") or [" +
                          std::to_string(level) + ", " + std::to_string(level + extended) + ") with P)");
  }
}

}  // namespace

void check_ciphertext(const Ciphertext& a, const char* op, const Preset& preset, std::size_t max_parts) {
  if (a.size() < 2 || a.size() > max_parts) {
    throw InvalidArgument(std::string(op) + ": a ciphertext of " + std::to_string(a.size()) + " parts (expected 2" +
                          (max_parts == 3 ? " or 3" : "") + ", " + where(preset, a.level) + ")");
  }
  for (const RnsPoly& part : a.parts) check_words(part, a.level, op, preset, "a ciphertext part");
}

void check_plaintext(const Plaintext& p, const char* op, const Preset& preset) {
  check_words(p.poly, p.level, op, preset, "the plaintext");
}

}  // namespace fhe
