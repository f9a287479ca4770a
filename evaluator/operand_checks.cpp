// The CPU evaluator's operand checks (operand_checks.h).
#include "evaluator/operand_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "fhe/core/error.h"

namespace fhe {
namespace {

std::string where(const Preset& preset, int level) {
  return "preset " + preset.name + ", level " + std::to_string(level);
}

std::string scale_text(double scale) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "2^%.6f", std::log2(scale));
  return buffer;
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

void check_same_level(int level_a, int level_b, const char* op, const Preset& preset) {
  if (level_a != level_b) {
    throw InvalidArgument(std::string(op) + ": operands at levels " + std::to_string(level_a) + " and " +
                          std::to_string(level_b) + " (preset " + preset.name +
                          "); drop_level the one at the lower level first");
  }
}

void check_same_scale(double scale_a, double scale_b, const char* op, const Preset& preset, int level) {
  const double relative = std::fabs(scale_a - scale_b) / std::max(scale_a, scale_b);
  if (relative > 1e-9) {
    // The relative gap too: after a rescale two scales may print alike.
    char gap[32];
    std::snprintf(gap, sizeof gap, "%.3g", relative);
    throw InvalidArgument(std::string(op) + ": operand scales " + scale_text(scale_a) + " and " +
                          scale_text(scale_b) + " differ by a relative " + gap + " (more than 1e-9; " +
                          where(preset, level) + ")");
  }
}

// At least a factor 2 below the modulus for messages up to 1: a product
// closer to it decrypts to garbage (the last level's multiply did, silently).
void check_scale_fits(double scale, int level, const char* op, const Preset& preset) {
  const double log2_modulus = preset.log2_q(level);
  if (std::log2(scale) + 1 > log2_modulus) {
    throw InvalidArgument(std::string(op) + ": the product's scale " + scale_text(scale) +
                          " leaves no room below the modulus 2^" + std::to_string(log2_modulus) + " of level " +
                          std::to_string(level) + " (preset " + preset.name + "); rescale the operands first");
  }
}

}  // namespace fhe
