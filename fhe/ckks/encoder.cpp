// CKKS encoding and decoding: special FFT, rounding into RNS rows, and the
// CRT (balanced mixed radix) back to doubles.
#include "fhe/ckks/encoder.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <span>
#include <string>

#include "fhe/core/error.h"
#include "fhe/ntt/twiddles.h"

namespace fhe {
namespace {

using Complex = std::complex<double>;

// x mod q for an integer-valued double with |x| < 2^127.
std::uint64_t residue_of_integer(double x, const Modulus<std::uint64_t>& q) {
  const double magnitude = std::fabs(x);
  const auto wide = static_cast<unsigned __int128>(magnitude);  // exact: an integer below 2^127
  const std::uint64_t r = reduce_wide<std::uint64_t>(static_cast<std::uint64_t>(wide >> 64),
                                                     static_cast<std::uint64_t>(wide), q);
  return x < 0 ? neg_mod(r, q.value) : r;
}

// The balanced representative of r mod q, in (-q/2, q/2].
std::int64_t centered(std::uint64_t r, std::uint64_t q) {
  return r > q / 2 ? -static_cast<std::int64_t>(q - r) : static_cast<std::int64_t>(r);
}

std::uint64_t residue_of_signed(std::int64_t d, const Modulus<std::uint64_t>& q) {
  const std::uint64_t magnitude = d < 0 ? static_cast<std::uint64_t>(-d) : static_cast<std::uint64_t>(d);
  const std::uint64_t r = reduce_wide<std::uint64_t>(0, magnitude, q);
  return d < 0 ? neg_mod(r, q.value) : r;
}

// floor(Q/2) of the level's Q rows, exactly, while Q < 2^128; none above
// (there the 2^127 bound is the tighter one).
std::optional<unsigned __int128> half_modulus_below_2_128(const Preset& preset, int level) {
  unsigned __int128 q = 1;
  for (std::uint64_t prime : std::span(preset.q_primes).last(preset.active_q_rows(level))) {
    if (q > ~static_cast<unsigned __int128>(0) / prime) return std::nullopt;
    q *= prime;
  }
  return q / 2;
}

}  // namespace

CkksEncoder::CkksEncoder(const Preset& preset, const RnsBasis& basis, const ntt::NttPlan& plan)
    : preset_(preset), basis_(basis), plan_(plan), slots_(preset.slots()) {
  const std::size_t two_n = 2 * preset.n();
  roots_.resize(two_n);
  for (std::size_t k = 0; k < two_n; ++k) {
    const double angle = 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(two_n);
    roots_[k] = {std::cos(angle), std::sin(angle)};
  }
  rotation_group_.resize(slots_);
  std::uint64_t power = 1;
  for (std::size_t j = 0; j < slots_; ++j) {
    rotation_group_[j] = power;
    power = power * 5 % two_n;
  }
  const int slot_bits = preset.log_n - 1;
  slot_bit_reverse_.resize(slots_);
  for (std::size_t j = 0; j < slots_; ++j) {
    slot_bit_reverse_[j] = ntt::bit_reverse(static_cast<std::uint32_t>(j), slot_bits);
  }
}

void CkksEncoder::bit_reverse_permute(std::vector<Complex>& values) const {
  for (std::size_t j = 0; j < slots_; ++j) {
    const std::size_t r = slot_bit_reverse_[j];
    if (j < r) std::swap(values[j], values[r]);
  }
}

// Decimation in time: sub-problems of size len over bit-reversed input; the
// odd half is multiplied by zeta_len^(5^j) where zeta_len has order 4 len.
void CkksEncoder::coefficients_to_slots(std::vector<Complex>& values) const {
  bit_reverse_permute(values);
  const std::size_t two_n = roots_.size();
  for (std::size_t len = 2; len <= slots_; len <<= 1) {
    const std::size_t half = len / 2;
    const std::size_t order = 4 * len;
    const std::size_t gap = two_n / order;
    for (std::size_t start = 0; start < slots_; start += len) {
      for (std::size_t j = 0; j < half; ++j) {
        const Complex w = roots_[(rotation_group_[j] % order) * gap];
        const Complex u = values[start + j];
        const Complex t = values[start + j + half] * w;
        values[start + j] = u + t;
        values[start + j + half] = u - t;
      }
    }
  }
}

// The same butterflies undone from the largest size down, then 1/(N/2).
void CkksEncoder::slots_to_coefficients(std::vector<Complex>& values) const {
  const std::size_t two_n = roots_.size();
  for (std::size_t len = slots_; len >= 2; len >>= 1) {
    const std::size_t half = len / 2;
    const std::size_t order = 4 * len;
    const std::size_t gap = two_n / order;
    for (std::size_t start = 0; start < slots_; start += len) {
      for (std::size_t j = 0; j < half; ++j) {
        const Complex w = std::conj(roots_[(rotation_group_[j] % order) * gap]);
        const Complex a = values[start + j];
        const Complex b = values[start + j + half];
        values[start + j] = a + b;
        values[start + j + half] = (a - b) * w;
      }
    }
  }
  bit_reverse_permute(values);
  const double inverse_count = 1.0 / static_cast<double>(slots_);
  for (Complex& v : values) v *= inverse_count;
}

Plaintext CkksEncoder::encode(std::span<const Complex> values, double scale, int level) const {
  return encode_rows(values, scale, level, preset_.active_q_rows(level));
}

Plaintext CkksEncoder::encode_extended(std::span<const Complex> values, double scale, int level) const {
  return encode_rows(values, scale, level, preset_.active_q_rows(level) + preset_.p_primes.size());
}

Plaintext CkksEncoder::encode_rows(std::span<const Complex> values, double scale, int level,
                                   std::size_t row_count) const {
  if (values.size() > slots_) {
    throw InvalidArgument("encode: " + std::to_string(values.size()) + " values exceed the " +
                          std::to_string(slots_) + " slots of preset " + preset_.name);
  }
  if (!(scale > 0) || !std::isfinite(scale)) {
    throw InvalidArgument("encode: scale " + std::to_string(scale) + " is not a positive number (preset " +
                          preset_.name + ")");
  }
  for (const Complex& value : values) {
    if (!std::isfinite(value.real()) || !std::isfinite(value.imag()))
      throw InvalidArgument("encode: a value is not finite (NaN or infinity; preset " + preset_.name + ")");
  }
  std::vector<Complex> v(slots_, Complex{0, 0});
  std::copy(values.begin(), values.end(), v.begin());
  slots_to_coefficients(v);

  const std::size_t n = preset_.n();
  std::vector<double> coefficients(n);
  for (std::size_t k = 0; k < slots_; ++k) {
    coefficients[k] = std::nearbyint(v[k].real() * scale);
    coefficients[k + slots_] = std::nearbyint(v[k].imag() * scale);
  }
  // Each coefficient must stay below half the level's Q modulus (else it
  // wraps and decodes to another number), below 2^127 (reduce_double) and
  // below 2^63 times the scale (what decode reads back). Half of Q exactly
  // while Q fits 128 bits: log2_q's rounding lets a value just above Q/2
  // through at two-prime levels.
  const double log2_limit = std::min({127.0, preset_.log2_q(level) - 1, 63 + std::log2(scale)});
  const std::optional<unsigned __int128> half_q = half_modulus_below_2_128(preset_, level);
  for (double c : coefficients) {
    const double magnitude = std::fabs(c);
    if (c != 0 && (std::log2(magnitude) >= log2_limit ||
                   (half_q && static_cast<unsigned __int128>(magnitude) > *half_q))) {
      throw InvalidArgument("encode: a scaled coefficient of 2^" + std::to_string(std::log2(magnitude)) +
                            " does not fit below 2^" + std::to_string(log2_limit) + " (half the modulus of level " +
                            std::to_string(level) + ", at most 2^127 and 2^63 times the scale; scale " +
                            std::to_string(scale) + ", preset " + preset_.name + ")");
    }
  }

  Plaintext plaintext{RnsPoly(static_cast<std::size_t>(level), row_count, n, false), level, scale};
  RnsPoly& poly = plaintext.poly;
  for (std::size_t id = poly.first_row(); id < poly.end_row(); ++id) {
    const Modulus<std::uint64_t>& q = basis_.modulus(id);
    std::uint64_t* row = poly.row(id);
    for (std::size_t k = 0; k < n; ++k) row[k] = residue_of_integer(coefficients[k], q);
  }
  plan_.forward(poly.data(), poly.rows());
  poly.set_ntt_form(true);
  return plaintext;
}

Plaintext CkksEncoder::encode(std::span<const double> values, double scale, int level) const {
  std::vector<Complex> complex_values(values.begin(), values.end());
  return encode(complex_values, scale, level);
}

std::vector<Complex> CkksEncoder::decode(const Plaintext& plaintext) const {
  const RnsPoly& poly = plaintext.poly;
  if (!poly.ntt_form() || poly.end_row() != preset_.q_primes.size() ||
      poly.first_row() != static_cast<std::size_t>(plaintext.level)) {
    throw InvalidArgument("decode: plaintext must be in NTT form over rows level..L (preset " +
                          preset_.name + ", level " + std::to_string(plaintext.level) + ")");
  }
  if (!(plaintext.scale > 0) || !std::isfinite(plaintext.scale)) {
    throw InvalidArgument("decode: scale " + std::to_string(plaintext.scale) +
                          " is not a positive finite number (preset " + preset_.name + ", level " +
                          std::to_string(plaintext.level) + ")");
  }
  // Rows from the base prime downward until they hold 2^64 * scale (at least one).
  const double needed_bits = std::log2(plaintext.scale) + 64;
  std::size_t count = 0;
  double bits = 0;
  while (count < poly.row_count() && (count == 0 || bits < needed_bits)) {
    bits += std::log2(static_cast<double>(basis_.prime(poly.end_row() - 1 - count)));
    ++count;
  }
  const ntt::RowRange crt_rows{poly.end_row() - count, count};
  RnsPoly residues = poly.copy_rows(crt_rows);
  plan_.inverse(residues.data(), crt_rows);

  // Balanced mixed radix (Garner): x = d_0 + m_0 (d_1 + m_1 (d_2 + ...)),
  // |d_i| <= m_i / 2, which is the centered representative mod prod m_i.
  std::vector<const Modulus<std::uint64_t>*> m(count);
  for (std::size_t i = 0; i < count; ++i) m[i] = &basis_.modulus(crt_rows.first + i);
  // prefix[j][i] = m_0 ... m_(j-1) mod m_i (j < i); prefix_inverse[i] = (m_0 ... m_(i-1))^-1 mod m_i.
  std::vector<std::vector<std::uint64_t>> prefix(count, std::vector<std::uint64_t>(count, 0));
  std::vector<std::uint64_t> prefix_inverse(count, 1);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t product = 1;
    for (std::size_t j = 0; j < i; ++j) {
      prefix[j][i] = product;
      product = mul_mod(product, m[j]->value % m[i]->value, *m[i]);
    }
    prefix_inverse[i] = inv_mod<std::uint64_t>(product, m[i]->value);
  }

  const std::size_t n = preset_.n();
  std::vector<double> coefficients(n);
  std::vector<std::int64_t> digits(count);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t t = residues.row(crt_rows.first + i)[k];
      for (std::size_t j = 0; j < i; ++j) {
        t = sub_mod(t, mul_mod(residue_of_signed(digits[j], *m[i]), prefix[j][i], *m[i]), m[i]->value);
      }
      t = mul_mod(t, prefix_inverse[i], *m[i]);
      digits[i] = centered(t, m[i]->value);
    }
    double value = static_cast<double>(digits[count - 1]);
    for (std::size_t i = count - 1; i-- > 0;) {
      value = static_cast<double>(digits[i]) + static_cast<double>(m[i]->value) * value;
    }
    coefficients[k] = value / plaintext.scale;
  }

  std::vector<Complex> v(slots_);
  for (std::size_t k = 0; k < slots_; ++k) v[k] = {coefficients[k], coefficients[k + slots_]};
  coefficients_to_slots(v);
  return v;
}

}  // namespace fhe
