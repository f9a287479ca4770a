// Keys, encryption and the engine: key relations hold row by row, the same
// seed gives the same words, Galois permutations are the automorphism, and
// the engine rejects what it cannot run with a clear message.
#include <gtest/gtest.h>

#include "fhe/ckks/engine.h"
#include "fhe/ckks/galois.h"
#include "fhe/ckks/key_generator.h"
#include "fhe/ckks/poly_arith.h"
#include "fhe/core/error.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

constexpr const char* kSmall = "test-slots2048-scale40-levels6-int64";

// Centered coefficients of an NTT-form polynomial's row.
std::vector<std::int64_t> centered_row(const CkksEngine& engine, const RnsPoly& ntt_poly, std::size_t id) {
  RnsPoly row = ntt_poly.copy_rows({id, 1});
  engine.ntt_plan().inverse(row.data(), row.rows());
  const std::uint64_t q = engine.rns_basis().prime(id);
  std::vector<std::int64_t> out(row.n());
  for (std::size_t k = 0; k < row.n(); ++k) {
    const std::uint64_t r = row.row(id)[k];
    out[k] = r > q / 2 ? -static_cast<std::int64_t>(q - r) : static_cast<std::int64_t>(r);
  }
  return out;
}

std::int64_t max_magnitude(const std::vector<std::int64_t>& values) {
  std::int64_t largest = 0;
  for (std::int64_t v : values) largest = std::max(largest, v < 0 ? -v : v);
  return largest;
}

TEST(CkksKeys, SecretIsTernaryAndTheSameIntegerInEveryRow) {
  CkksEngine engine(kSmall, {.seed = 3});
  engine.generate_keys();
  const auto first = centered_row(engine, engine.secret_key().ntt, 0);
  EXPECT_EQ(max_magnitude(first), 1);
  for (std::size_t id = 1; id < engine.preset().qp_rows(); ++id) {
    EXPECT_EQ(centered_row(engine, engine.secret_key().ntt, id), first) << "row " << id;
  }
  EXPECT_EQ(engine.secret_key().seed, 3u);
}

TEST(CkksKeys, PublicKeyIsAnRlweSampleWithSmallError) {
  CkksEngine engine(kSmall, {.seed = 4});
  engine.generate_keys();
  const PublicKey& pk = engine.public_key();
  RnsPoly error = pk.a;
  multiply_inplace(error, engine.secret_key().ntt, engine.rns_basis());
  add_inplace(error, pk.b, engine.rns_basis());  // b + a s = e
  for (std::size_t id = 0; id < engine.preset().q_primes.size(); ++id) {
    const std::int64_t largest = max_magnitude(centered_row(engine, error, id));
    EXPECT_LE(largest, 19) << "row " << id;
    EXPECT_GE(largest, 5) << "row " << id;  // a real Gaussian, not zero
  }
}

TEST(CkksKeys, KeySwitchKeysCarryTheDigitIdempotentTimesP) {
  CkksEngine engine(kSmall, {.seed = 5});
  engine.generate_keys({1});
  const Preset& preset = engine.preset();
  const RnsBasis& basis = engine.rns_basis();
  const auto digits = key_switch_digits(preset);
  ASSERT_EQ(static_cast<int>(digits.size()), preset.dnum());
  const std::uint64_t g = engine.galois_element_for_step(1);
  RnsPoly s_squared = engine.secret_key().ntt;
  multiply_inplace(s_squared, engine.secret_key().ntt, basis);
  RnsPoly s_galois;
  apply_galois_ntt(engine.secret_key().ntt, galois_ntt_permutation(g, preset.log_n), s_galois);
  for (const auto& [key, target] : {std::pair{&engine.relinearization_key(), &s_squared},
                                    std::pair{&engine.galois_key(g), &s_galois}}) {
    ASSERT_EQ(key->components.size(), digits.size());
    for (std::size_t j = 0; j < digits.size(); ++j) {
      // b_j + a_j s - g_j s' must be the small error e_j in every QP row.
      RnsPoly error = key->components[j].a;
      multiply_inplace(error, engine.secret_key().ntt, basis);
      add_inplace(error, key->components[j].b, basis);
      for (std::size_t id = digits[j].first; id < digits[j].first + digits[j].count; ++id) {
        std::uint64_t p_mod_q = 1;
        for (std::uint64_t p : preset.p_primes) p_mod_q = mul_mod(p_mod_q, p % basis.prime(id), basis.modulus(id));
        for (std::size_t k = 0; k < preset.n(); ++k) {
          error.row(id)[k] = sub_mod(error.row(id)[k], mul_mod(p_mod_q, target->row(id)[k], basis.modulus(id)),
                                     basis.prime(id));
        }
      }
      for (std::size_t id = 0; id < preset.qp_rows(); ++id) {
        EXPECT_LE(max_magnitude(centered_row(engine, error, id)), 19) << "digit " << j << " row " << id;
      }
    }
  }
}

// The engine builds every (key, digit) on its own thread; one generator
// building the digits one at a time, last digit first, gives its words.
TEST(CkksKeys, DigitsBuiltInAnyOrderGiveTheEngineWords) {
  CkksEngine engine(kSmall, {.seed = 5});
  engine.generate_keys({3});
  const Sampler sampler(engine.seed());
  const KeyGenerator generator(engine.preset(), engine.rns_basis(), engine.ntt_plan(), sampler);
  const std::uint64_t g = engine.galois_element_for_step(3);
  for (const auto& [instance, key] : {std::pair{std::uint64_t{0}, &engine.relinearization_key()},
                                      std::pair{g, &engine.galois_key(g)}}) {
    ASSERT_EQ(key->components.size(), generator.digit_count());
    for (std::size_t j = generator.digit_count(); j-- > 0;) {
      EXPECT_EQ(generator.switch_key_component(engine.secret_key(), instance, j), key->components[j])
          << "instance " << instance << ", digit " << j;
    }
  }
}

TEST(CkksKeys, SameSeedSameWordsOtherSeedOtherWords) {
  CkksEngine first(kSmall, {.seed = 9}), second(kSmall, {.seed = 9}), other(kSmall, {.seed = 10});
  for (CkksEngine* engine : {&first, &second, &other}) engine->generate_keys({1, -2}, true);
  EXPECT_EQ(first.secret_key(), second.secret_key());
  EXPECT_EQ(first.public_key(), second.public_key());
  EXPECT_EQ(first.relinearization_key(), second.relinearization_key());
  EXPECT_EQ(first.galois_keys(), second.galois_keys());
  EXPECT_EQ(first.galois_keys().size(), 3u);
  EXPECT_NE(first.secret_key().ntt, other.secret_key().ntt);
  EXPECT_NE(first.public_key(), other.public_key());

  const auto z = testing::random_message(first.slot_count(), 1);
  const Ciphertext a = first.encrypt_message(z), b = second.encrypt_message(z);
  EXPECT_EQ(a, b);
  EXPECT_NE(first.encrypt_message(z), a);  // the next encryption index, new randomness
  EXPECT_EQ(first.encryption_count(), 2u);
}

// adopt_keys: another backend's engine of the same preset and seed shares
// the key set, which holds exactly the words its own generate_keys gives.
TEST(CkksKeys, AdoptedKeysAreTheWordsEveryBackendGenerates) {
  CkksEngine owner(kSmall, {.ntt_backend = "radix2_indexed", .seed = 9});
  CkksEngine adopter(kSmall, {.ntt_backend = "radix4_compact", .seed = 9});
  CkksEngine generator(kSmall, {.ntt_backend = "radix4_compact", .seed = 9});
  EXPECT_THROW(adopter.adopt_keys(owner), InvalidArgument);  // nothing to adopt yet
  owner.generate_keys({1, 3});
  generator.generate_keys({1, 3});
  adopter.adopt_keys(owner);
  EXPECT_EQ(adopter.key_set(), owner.key_set());  // shared, not copied
  EXPECT_EQ(adopter.secret_key(), generator.secret_key());
  EXPECT_EQ(adopter.relinearization_key(), generator.relinearization_key());
  EXPECT_EQ(adopter.galois_keys(), generator.galois_keys());
  const auto z = testing::random_message(owner.slot_count(), 2);
  EXPECT_EQ(adopter.encrypt_message(z), generator.encrypt_message(z));
  // A later generate_keys gives the adopter its own set; the owner keeps its.
  adopter.generate_keys({1});
  EXPECT_NE(adopter.key_set(), owner.key_set());
  EXPECT_EQ(owner.galois_keys().size(), 2u);

  CkksEngine other_seed(kSmall, {.seed = 10});
  EXPECT_THROW(other_seed.adopt_keys(owner), InvalidArgument);
  CkksEngine other_preset("test-slots2048-scale25-levels4-int32", {.seed = 9});
  EXPECT_THROW(other_preset.adopt_keys(owner), InvalidArgument);
}

TEST(CkksEncryption, PublicAndSecretKeyEncryptionDecryptWithinTolerance) {
  CkksEngine engine(kSmall, {.seed = 6});
  engine.generate_keys();
  const auto z = testing::random_message(engine.slot_count(), 7);
  for (int level : {0, 3, engine.preset().levels}) {
    const Ciphertext pk_ct = engine.encrypt_message(z, level);
    EXPECT_EQ(pk_ct.level, level);
    EXPECT_EQ(pk_ct.parts[0].first_row(), static_cast<std::size_t>(level));
    EXPECT_LT(testing::max_abs_error(engine.decrypt_message(pk_ct), z), 1e-5) << "level " << level;
    const Ciphertext sk_ct = engine.encrypt_symmetric(engine.encode(z, level));
    EXPECT_LT(testing::max_abs_error(engine.decrypt_message(sk_ct), z), 1e-5) << "level " << level;
  }
}

TEST(CkksEncryption, CiphertextsHideTheMessage) {
  // Without the secret, part 0 must not be the encoded plaintext.
  CkksEngine engine(kSmall, {.seed = 6});
  engine.generate_keys();
  const auto z = testing::random_message(engine.slot_count(), 8);
  const Plaintext pt = engine.encode(z);
  const Ciphertext ct = engine.encrypt(pt);
  EXPECT_NE(ct.parts[0], pt.poly);
  EXPECT_GT(testing::max_abs_error(engine.decode({ct.parts[0], 0, pt.scale}), z), 1.0);
}

TEST(Galois, ElementsOfStepsAndConjugation) {
  const int log_n = 11;
  EXPECT_EQ(galois_element_for_step(0, log_n), 1u);
  EXPECT_EQ(galois_element_for_step(1, log_n), 5u);
  EXPECT_EQ(galois_element_for_step(2, log_n), 25u);
  EXPECT_EQ(galois_element_for_step(1024, log_n), 1u);  // N/2 slots: a full turn
  EXPECT_EQ(galois_element_for_step(-1, log_n), galois_element_for_step(1023, log_n));
  EXPECT_EQ(conjugation_galois_element(log_n), 4095u);
}

TEST(Galois, NttPermutationIsTheCoefficientAutomorphism) {
  const CkksEngine engine("test-slots512-scale40-levels3-int64");
  const std::size_t n = engine.preset().n();
  const std::uint64_t q = engine.preset().q_primes[0];
  RnsPoly a(0, 1, n, false);
  Sampler(1).fill_uniform(a, 1, engine.rns_basis());
  for (std::uint64_t g : {std::uint64_t{5}, std::uint64_t{125}, 2 * n - 1}) {
    // a(X^g) in coefficient form: X^k -> +-X^(g k mod N), negated when g k mod 2N >= N.
    RnsPoly expected(0, 1, n, false);
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t e = g * k % (2 * n);
      expected.row(0)[e % n] = e < n ? a.row(0)[k] : neg_mod(a.row(0)[k], q);
    }
    RnsPoly a_ntt = a, got;
    engine.ntt_plan().forward(a_ntt.data(), a_ntt.rows());
    a_ntt.set_ntt_form(true);
    const auto table = galois_ntt_permutation(g, engine.preset().log_n);
    apply_galois_ntt(a_ntt, table, got);
    engine.ntt_plan().inverse(got.data(), got.rows());
    EXPECT_EQ(got.words(), expected.words()) << "g = " << g;
  }
  EXPECT_THROW(galois_ntt_permutation(4, engine.preset().log_n), InvalidArgument);
}

// Every automorphism's NTT-domain permutation moves 256-word tiles whole:
// index p = br(j) holds the odd exponent 2j + 1, its tile (p >> 8) is set
// by j mod 2^(logN - 8), and (2j + 1) g mod 2^(logN - 7) depends on that
// alone (tiles stay in place when g = 1 mod 2^(logN - 7)). The fused
// region + key product of a rotation reads its digit tiles this way
// (evaluator/cuda/region_key_product.cuh, fused_tile_thread).
TEST(Galois, NttPermutationMovesTilesWhole) {
  for (const int log_n : {8, 12, 16}) {
    const std::uint32_t tiles = 1u << (log_n - 8);
    std::size_t moved = 0;  // tiles sent elsewhere, over all elements: not the identity on tiles
    std::vector<std::uint64_t> elements = {conjugation_galois_element(log_n)};
    for (const int step : {1, 2, 3, 4, 8, -1, 100}) elements.push_back(galois_element_for_step(step, log_n));
    for (const std::uint64_t g : elements) {
      const auto table = galois_ntt_permutation(g, log_n);
      std::size_t mixed = 0;
      std::vector<bool> source_used(tiles, false);
      for (std::uint32_t tile = 0; tile < tiles; ++tile) {
        const std::uint32_t source = table[tile * 256] >> 8;
        for (std::uint32_t k = 0; k < 256; ++k) mixed += (table[tile * 256 + k] >> 8) != source;
        moved += source != tile;
        EXPECT_FALSE(source_used[source]) << "g = " << g << ": two tiles from tile " << source;
        source_used[source] = true;
      }
      EXPECT_EQ(mixed, 0u) << "logN " << log_n << ", g = " << g;
    }
    if (log_n > 8) EXPECT_GT(moved, 0u) << "logN " << log_n;
  }
}

TEST(CkksEngine, UsesTheStableFallbackAndOnePlanOverAllRows) {
  const CkksEngine engine(kSmall);
  EXPECT_EQ(engine.ntt_backend(), "radix2_indexed");
  EXPECT_EQ(engine.ntt_plan().row_count(), engine.preset().qp_rows());
  EXPECT_EQ(engine.device().str(), "cpu");
  EXPECT_EQ(engine.default_scale(), std::ldexp(1.0, 40));
}

TEST(CkksEngine, RejectsWhatItCannotRun) {
  EXPECT_THROW(CkksEngine("slots1-scale40-levels1-int64"), InvalidArgument);
  try {
    // logN 10: strict radix 8 needs logN divisible by 3.
    CkksEngine engine("test-slots512-scale40-levels3-int64", {.ntt_backend = "radix8_compact"});
    FAIL() << "an incompatible backend was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("radix8_compact"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test-slots512-scale40-levels3-int64"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CkksEngine(kSmall, {.ntt_backend = "radix3_magic"}), InvalidArgument);
  EXPECT_THROW(CkksEngine(kSmall, {.device = "gpu0"}), InvalidArgument);
  // A CUDA ordinal that no machine has (or a build without CUDA): DeviceError.
  EXPECT_THROW(CkksEngine(kSmall, {.device = "cuda:4096"}), DeviceError);
  CkksEngine engine(kSmall);
  const std::vector<double> one = {1.0};
  EXPECT_THROW(engine.encrypt_message(one), InvalidArgument);  // no keys yet
  engine.generate_keys({1});
  EXPECT_THROW(engine.galois_key(engine.galois_element_for_step(2)), InvalidArgument);
}

}  // namespace
}  // namespace fhe
