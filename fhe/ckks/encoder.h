// The CKKS encoder: canonical embedding through a special FFT over the slots.
//
// Slot j of a real polynomial m holds m(zeta^(5^j)), zeta = exp(i pi / N),
// j < N/2 (the rotation group <5> mod 2N; the conjugate slots follow from m
// being real). Writing v_k = m_k + i m_(k+N/2) (because zeta^(5^j N/2) = i),
// slot j = sum_k v_k zeta^(5^j k): a size-N/2 "special" FFT whose butterfly
// at sub-size len uses zeta^((5^j mod 4 len) * N/(2 len)).
// Encoding inverts it, scales by Delta, rounds to integers and reduces into
// every active row; decoding composes the integer coefficients by CRT.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "fhe/ckks/ciphertext.h"
#include "fhe/ckks/rns_basis.h"
#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"

namespace fhe {

class CkksEncoder {
 public:
  // `plan` covers all QP rows of `preset`; both must outlive the encoder.
  CkksEncoder(const Preset& preset, const RnsBasis& basis, const ntt::NttPlan& plan);

  std::size_t slot_count() const { return slots_; }

  // Up to N/2 values (missing slots are zero) into an NTT-form plaintext over
  // rows level..L. Throws InvalidArgument for too many values, a scale <= 0,
  // or a scaled coefficient of 2^127 or more.
  Plaintext encode(std::span<const std::complex<double>> values, double scale, int level) const;
  Plaintext encode(std::span<const double> values, double scale, int level) const;
  // The same over the extended rows of `level` (level..L and the P rows): a
  // plaintext that multiplies key-switched terms before their ModDown.
  Plaintext encode_extended(std::span<const std::complex<double>> values, double scale, int level) const;

  // N/2 slot values of a plaintext (divided by its scale). The CRT uses just
  // enough rows (from the base prime down) to hold |coefficient| < 2^64 * scale;
  // a message that large has no meaning in a double anyway.
  std::vector<std::complex<double>> decode(const Plaintext& plaintext) const;

  // The special FFT pair on N/2 values, in place: coefficients v -> slots
  // (decoding direction) and its inverse (encoding direction).
  void coefficients_to_slots(std::vector<std::complex<double>>& values) const;
  void slots_to_coefficients(std::vector<std::complex<double>>& values) const;

 private:
  void bit_reverse_permute(std::vector<std::complex<double>>& values) const;
  Plaintext encode_rows(std::span<const std::complex<double>> values, double scale, int level,
                        std::size_t row_count) const;

  const Preset& preset_;
  const RnsBasis& basis_;
  const ntt::NttPlan& plan_;
  std::size_t slots_;
  std::vector<std::complex<double>> roots_;   // zeta^k, k < 2N
  std::vector<std::uint64_t> rotation_group_;  // 5^j mod 2N, j < N/2
  std::vector<std::uint32_t> slot_bit_reverse_;
};

}  // namespace fhe
