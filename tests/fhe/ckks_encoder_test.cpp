// The CKKS encoder: the special FFT against the canonical embedding computed
// directly (Eigen), codec round trips within SPEC tolerance, error paths.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <span>

#include "fhe/ckks/engine.h"
#include "fhe/core/error.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

using Complex = std::complex<double>;

TEST(CkksEncoder, SpecialFftIsTheCanonicalEmbedding) {
  const CkksEngine engine("test-slots512-scale40-levels3-int64");
  const std::size_t n = engine.preset().n(), slots = engine.slot_count();
  const auto v = testing::random_message(slots, 1);
  // slot j = sum_k v_k zeta^(5^j k) with zeta = exp(i pi / N).
  Eigen::MatrixXcd embedding(slots, slots);
  std::uint64_t power = 1;
  for (std::size_t j = 0; j < slots; ++j) {
    for (std::size_t k = 0; k < slots; ++k) {
      const double angle = std::numbers::pi * static_cast<double>((power * k) % (2 * n)) / static_cast<double>(n);
      embedding(j, k) = std::polar(1.0, angle);
    }
    power = power * 5 % (2 * n);
  }
  const Eigen::VectorXcd expected = embedding * Eigen::Map<const Eigen::VectorXcd>(v.data(), slots);
  std::vector<Complex> fft = v;
  engine.encoder().coefficients_to_slots(fft);
  for (std::size_t j = 0; j < slots; ++j) EXPECT_LT(std::abs(fft[j] - expected(j)), 1e-10) << j;
  engine.encoder().slots_to_coefficients(fft);
  EXPECT_LT(testing::max_abs_error(fft, v), 1e-13);
}

TEST(CkksEncoder, EncodedPolynomialIsRealWithTheMessageAsItsEmbedding) {
  // m(zeta^(5^j)) over the real integer coefficients equals Delta * z_j.
  const CkksEngine engine("test-slots512-scale40-levels3-int64");
  const std::size_t n = engine.preset().n();
  const auto z = testing::random_message(engine.slot_count(), 2);
  const Plaintext pt = engine.encode(z);
  RnsPoly base = pt.poly.copy_rows({3, 1});  // the 60-bit base prime holds the coefficients
  engine.ntt_plan().inverse(base.data(), base.rows());
  const std::uint64_t q = engine.preset().q_primes[3];
  for (std::size_t j : {0, 1, 77, 255}) {
    const std::uint64_t exponent = fhe::pow_mod<std::uint64_t>(5, j, 2 * n);
    Complex value = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t r = base.row(3)[k];
      const double c = r > q / 2 ? -static_cast<double>(q - r) : static_cast<double>(r);
      value += c * std::polar(1.0, std::numbers::pi * static_cast<double>(exponent * k % (2 * n)) / n);
    }
    EXPECT_LT(std::abs(value / pt.scale - z[j]), 1e-9) << "slot " << j;
  }
}

TEST(CkksEncoder, CodecErrorWithinTolerance) {
  for (const char* name : {"test-slots512-scale40-levels3-int64", "test-slots4096-scale40-levels8-int64",
                           "test-slots2048-scale25-levels4-int32"}) {
    const CkksEngine engine(name);
    const auto z = testing::random_message(engine.slot_count(), 3);
    for (int level : {0, engine.preset().levels}) {
      const double error = testing::max_abs_error(engine.decode(engine.encode(z, level)), z);
      EXPECT_LT(error, 1e-5) << name << " level " << level;
    }
  }
}

TEST(CkksEncoder, RealValuesAndPartialSlots) {
  const CkksEngine engine("test-slots2048-scale40-levels6-int64");
  const std::vector<double> values = {0.5, -0.25, 1.0, 0.125};
  const auto decoded = engine.decode(engine.encode(values, 2));
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    const double expected = i < values.size() ? values[i] : 0.0;
    EXPECT_NEAR(decoded[i].real(), expected, 1e-9) << i;
    EXPECT_NEAR(decoded[i].imag(), 0.0, 1e-9) << i;
  }
}

TEST(CkksEncoder, LargeScaleUsesMoreCrtRows) {
  // Delta = 2^80 needs coefficients beyond one 60-bit row and beyond int64.
  const CkksEngine engine("test-slots2048-scale40-levels6-int64");
  const auto z = testing::random_message(engine.slot_count(), 4);
  const Plaintext pt = engine.encode(z, 0, std::ldexp(1.0, 80));
  EXPECT_LT(testing::max_abs_error(engine.decode(pt), z), 1e-9);
}

TEST(CkksEncoder, RejectsBadInput) {
  const CkksEngine engine("test-slots512-scale40-levels3-int64");
  const std::vector<double> too_many(engine.slot_count() + 1, 0.0);
  EXPECT_THROW(engine.encode(too_many), InvalidArgument);
  const std::vector<double> one = {1.0};
  EXPECT_THROW(engine.encode(one, 4), InvalidArgument);   // level beyond L
  EXPECT_THROW(engine.encode(one, -1), InvalidArgument);
  EXPECT_THROW(engine.encode(one, 0, -1.0), InvalidArgument);
  EXPECT_THROW(engine.encode(one, 0, std::ldexp(1.0, 200)), InvalidArgument);  // beyond 2^127
  const std::vector<double> not_finite = {1.0, std::nan("")};
  EXPECT_THROW(engine.encode(not_finite), InvalidArgument);
  // At the last level only the 60-bit base prime is left: 2^20 x 2^40 wraps.
  const std::vector<double> large(engine.slot_count(), 1e6);
  try {
    engine.encode(large, 3);
    ADD_FAILURE() << "a message that wraps around the level's modulus was encoded";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("half the modulus of level 3"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(engine.encode(large, 0));  // four primes hold it
}

// At a two-prime level log2(Q) is a sum of rounded logarithms: a scale just
// above Q/2 passed a test on it and decoded with the wrong sign. The exact
// Q refuses it; the largest double below Q/2 still encodes and decodes.
TEST(CkksEncoder, HalfTheModulusIsExactAtFewPrimes) {
  const CkksEngine engine("slots8192-scale40-levels7-int64");  // level 6: two primes, where the log2 sum let it by
  const int level = 6;
  const Preset& preset = engine.preset();
  unsigned __int128 q = 1;
  for (std::uint64_t prime : std::span(preset.q_primes).last(preset.active_q_rows(level))) q *= prime;
  const unsigned __int128 half = q / 2;
  double above = static_cast<double>(half);
  if (static_cast<unsigned __int128>(above) <= half) above = std::nextafter(above, INFINITY);
  double below = std::nextafter(above, 0.0);
  ASSERT_LE(static_cast<unsigned __int128>(below), half);
  const std::vector<double> ones(engine.slot_count(), 1.0);  // coefficient 0 = the scale, the others 0
  EXPECT_THROW(engine.encode(ones, level, above), InvalidArgument);
  // Half that scale leaves room for the FFT's rounding of the other coefficients.
  const Plaintext pt = engine.encode(ones, level, std::ldexp(below, -1));
  EXPECT_NEAR(engine.decode(pt)[0].real(), 1.0, 1e-6);
}

// decode reads back 2^63 times the scale: a larger message is refused at
// encode instead of decoding to garbage.
TEST(CkksEncoder, MessagesDecodeCannotReadBackAreRefused) {
  const CkksEngine engine("test-slots512-scale40-levels3-int64");
  const std::vector<double> huge(engine.slot_count(), std::ldexp(1.0, 70));
  EXPECT_THROW(engine.encode(huge, 0), InvalidArgument);
  const std::vector<double> big(engine.slot_count(), std::ldexp(1.0, 50));
  const auto decoded = engine.decode(engine.encode(big, 0));
  EXPECT_NEAR(decoded[7].real() / std::ldexp(1.0, 50), 1.0, 1e-9);
}

}  // namespace
}  // namespace fhe
