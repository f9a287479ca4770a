// Every operation on every NTT backend compatible with a small int64 preset
// (logN 12 admits all seven): decryption errors within the SPEC tolerances,
// and the same words as the radix2_indexed oracle for the same seed.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "evaluator/evaluator.h"
#include "fhe/ntt/registry.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

using Complex = std::complex<double>;
using Message = std::vector<Complex>;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";
constexpr double kAddTolerance = 2e-5, kKeySwitchTolerance = 2e-5, kMultiplyTolerance = 3e-5;
const std::vector<int> kSteps = {1, 2, 4, 8};

Message rotated(const Message& x, int step) {
  const auto slots = static_cast<int>(x.size());
  Message out(x.size());
  for (int i = 0; i < slots; ++i) out[i] = x[((i + step) % slots + slots) % slots];
  return out;
}

template <typename Op>
Message map2(const Message& a, const Message& b, Op op) {
  Message out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = op(a[i], b[i]);
  return out;
}

// Every operation once; the ciphertexts (for word comparison) and errors.
struct Transcript {
  std::map<std::string, Ciphertext> ciphertexts;
  std::map<std::string, double> errors;
  GaloisKeys galois_keys;
};

Transcript run_operations(const std::string& backend) {
  CkksEngine engine(kPreset, {.ntt_backend = backend, .seed = 2024});
  engine.generate_keys({1, 2, 4, 8, -3}, true);
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 1);
  const Message y = testing::random_message(engine.slot_count(), 2);
  const Message w = testing::random_message(engine.slot_count(), 3);
  Transcript t;
  auto record = [&](const std::string& name, const Ciphertext& ct, const Message& expected) {
    t.ciphertexts[name] = ct;
    t.errors[name] = testing::max_abs_error(engine.decrypt_message(ct), expected);
  };
  const Ciphertext cx = engine.encrypt_message(x), cy = engine.encrypt_message(y);
  record("encrypt", cx, x);
  record("add", evaluator.add(cx, cy), map2(x, y, std::plus<>()));
  record("sub", evaluator.sub(cx, cy), map2(x, y, std::minus<>()));
  record("negate", evaluator.negate(cx), map2(x, x, [](Complex a, Complex) { return -a; }));
  record("add_plain", evaluator.add_plain(cx, engine.encode(w)), map2(x, w, std::plus<>()));
  record("multiply_plain", evaluator.rescale(evaluator.multiply_plain(cx, engine.encode(w))),
         map2(x, w, std::multiplies<>()));
  record("multiply_relinearize", evaluator.rescale(evaluator.multiply_relinearize(cx, cy)),
         map2(x, y, std::multiplies<>()));
  for (int step : {1, -3}) record("rotate" + std::to_string(step), evaluator.rotate(cx, step), rotated(x, step));
  record("conjugate", evaluator.conjugate(cx), map2(x, x, [](Complex a, Complex) { return std::conj(a); }));
  const auto many = evaluator.rotate_many_by_steps(cx, kSteps);
  for (std::size_t i = 0; i < kSteps.size(); ++i) {
    record("rotate_many" + std::to_string(kSteps[i]), many[i], rotated(x, kSteps[i]));
  }
  t.galois_keys = engine.galois_keys();
  return t;
}

const Transcript& oracle_transcript() {
  static const Transcript transcript = run_operations(std::string(ntt::kOracleBackend));
  return transcript;
}

double tolerance_of(const std::string& op) {
  if (op.starts_with("multiply")) return kMultiplyTolerance;
  if (op.starts_with("rotate") || op == "conjugate") return kKeySwitchTolerance;
  return op == "encrypt" ? 1e-5 : kAddTolerance;
}

class EveryBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryBackend, ErrorsWithinToleranceAndWordsEqualTheOracle) {
  const Transcript t = run_operations(GetParam());
  const Transcript& oracle = oracle_transcript();
  ASSERT_EQ(t.errors.size(), 14u);
  for (const auto& [op, error] : t.errors) {
    EXPECT_LT(error, tolerance_of(op)) << GetParam() << " " << op;
    EXPECT_GT(error, 0.0) << op;  // a real decryption, not a copy of the message
    EXPECT_TRUE(t.ciphertexts.at(op) == oracle.ciphertexts.at(op)) << GetParam() << " " << op << " differs from "
                                                                   << ntt::kOracleBackend;
  }
  EXPECT_TRUE(t.galois_keys == oracle.galois_keys);
}

std::vector<std::string> compatible_backends() {
  std::vector<std::string> names;
  for (const auto& backend : ntt::all_backends()) {
    if (ntt::compatibility(backend, preset_by_name(kPreset).log_n).compatible) names.emplace_back(backend.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Cpu, EveryBackend, ::testing::ValuesIn(compatible_backends()),
                         [](const auto& info) { return info.param; });

TEST(EveryBackendList, CoversAllSeven) { EXPECT_EQ(compatible_backends().size(), 7u); }

TEST(Evaluator, HoistedRotationsEqualSingleRotationsWordForWord) {
  CkksEngine engine(kPreset, {.seed = 5});
  engine.generate_keys(kSteps);
  const Evaluator evaluator(engine);
  const Ciphertext ct = engine.encrypt_message(testing::random_message(engine.slot_count(), 9));
  const auto many = evaluator.rotate_many_by_steps(ct, {8, 0, 1, 4, 2});
  ASSERT_EQ(many.size(), 5u);
  EXPECT_EQ(many[0], evaluator.rotate(ct, 8));
  EXPECT_EQ(many[1], ct);  // step 0 is the ciphertext itself
  EXPECT_EQ(many[2], evaluator.rotate(ct, 1));
  EXPECT_EQ(many[3], evaluator.rotate(ct, 4));
  EXPECT_EQ(many[4], evaluator.rotate(ct, 2));
}

TEST(Evaluator, SameSeedSameResultsTwice) {
  auto run = [] {
    CkksEngine engine(kPreset, {.seed = 77});
    engine.generate_keys({3});
    const Evaluator evaluator(engine);
    const Ciphertext a = engine.encrypt_message(testing::random_message(engine.slot_count(), 1));
    const Ciphertext b = engine.encrypt_message(testing::random_message(engine.slot_count(), 2));
    return std::vector<Ciphertext>{evaluator.rescale(evaluator.multiply_relinearize(a, b)), evaluator.rotate(a, 3)};
  };
  EXPECT_EQ(run(), run());
}

TEST(Evaluator, UnrelinearizedProductDecryptsAndRelinearizesLater) {
  CkksEngine engine(kPreset, {.seed = 8});
  engine.generate_keys();
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 4);
  const Message y = testing::random_message(engine.slot_count(), 5);
  const Ciphertext a = engine.encrypt_message(x), b = engine.encrypt_message(y);
  const Ciphertext three = evaluator.multiply(a, b);
  ASSERT_EQ(three.size(), 3u);
  const Message expected = map2(x, y, std::multiplies<>());
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(evaluator.rescale(three)), expected), kMultiplyTolerance);
  const Ciphertext relinearized = evaluator.relinearize(three);
  EXPECT_EQ(relinearized.size(), 2u);
  EXPECT_EQ(relinearized, evaluator.multiply_relinearize(a, b));
  // Adding a 2-part and a 3-part ciphertext keeps 3 parts.
  EXPECT_EQ(evaluator.add(three, evaluator.multiply_relinearize(a, b)).size(), 3u);
}

TEST(Evaluator, KeySwitchingNoiseStaysAtTheFreshLevelWithOneSpecialPrime) {
  // With |P| = 1 the base-prime digit's lift is as large as P; a lift in
  // [0, q) instead of (-q/2, q/2] once put a bias into the key-switching
  // noise that the embedding concentrated into a few slots (10x the fresh
  // error at this preset). Centered conversion keeps it at the fresh level.
  CkksEngine engine("slots8192-scale40-levels7-int64", {.seed = 2024});
  engine.generate_keys({2, -1}, true);
  const Evaluator evaluator(engine);
  const Message x = testing::random_message(engine.slot_count(), 1);
  const Ciphertext ct = engine.encrypt_message(x);
  const double fresh = testing::max_abs_error(engine.decrypt_message(ct), x);
  for (int step : {2, -1}) {
    EXPECT_LT(testing::max_abs_error(engine.decrypt_message(evaluator.rotate(ct, step)), rotated(x, step)), 2 * fresh)
        << "step " << step;
  }
  EXPECT_LT(testing::max_abs_error(engine.decrypt_message(evaluator.conjugate(ct)),
                                   map2(x, x, [](Complex a, Complex) { return std::conj(a); })),
            2 * fresh);
}

}  // namespace
}  // namespace fhe
