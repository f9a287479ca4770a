// Evaluator::accumulate_rotations, accumulate_extended_rotation + mod_down
// and mod_down_rescale (sums of rotations with one ModDown): exact against
// rotate/add/rescale where the mathematics says so, the decrypted sum within
// tolerance, and the words independent of chunking.
#include <gtest/gtest.h>

#include "evaluator/evaluator.h"
#include "fhe/core/error.h"
#include "tests/fhe/ckks_test_util.h"

namespace fhe {
namespace {

using Message = std::vector<std::complex<double>>;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

// The constant polynomial 1 over the extended rows of `level`: every NTT
// value is 1, scale 1. Multiplying by it changes no word.
Plaintext extended_one(const CkksEngine& engine, const Evaluator& evaluator, int level) {
  const ntt::RowRange rows = evaluator.key_switch_schedule(level).extended_rows;
  Plaintext one{RnsPoly(rows.first, rows.count, engine.preset().n(), true), level, 1.0};
  std::fill(one.poly.data(), one.poly.data() + rows.count * engine.preset().n(), 1);
  return one;
}

class ExtendedSum : public ::testing::Test {
 protected:
  ExtendedSum() : engine(kPreset, {.seed = 41}) {
    engine.generate_keys({1, 2, 3});
    evaluator = std::make_unique<Evaluator>(engine);
    x = testing::random_message(engine.slot_count(), 4);
    ct = engine.encrypt_message(x);
  }
  CkksEngine engine;
  std::unique_ptr<Evaluator> evaluator;
  Message x;
  Ciphertext ct;
};

TEST_F(ExtendedSum, TimesOneItIsRotateWordForWord) {
  const Plaintext one = extended_one(engine, *evaluator, 0);
  Ciphertext rotation, itself, both;
  evaluator->accumulate_rotations(ct, {3}, {&one}, rotation);
  evaluator->accumulate_rotations(ct, {0}, {&one}, itself);
  evaluator->accumulate_rotations(ct, {0, 3}, {&one, &one}, both);
  EXPECT_EQ(evaluator->mod_down(rotation), evaluator->rotate(ct, 3));
  EXPECT_EQ(evaluator->mod_down(itself), ct);  // P x ct divides back exactly
  // P x ct has zero P rows, so it does not move the ModDown rounding.
  EXPECT_EQ(evaluator->mod_down(both), evaluator->add(ct, evaluator->rotate(ct, 3)));
}

TEST_F(ExtendedSum, NullPlaintextAndStoredTermsAreTimesOne) {
  const Plaintext one = extended_one(engine, *evaluator, 0);
  Ciphertext with_one, with_null;
  evaluator->accumulate_rotations(ct, {2, 0}, {&one, &one}, with_one);
  evaluator->accumulate_rotations(ct, {2, 0}, {nullptr, nullptr}, with_null);
  EXPECT_EQ(with_null, with_one);
  const std::vector<Ciphertext> terms = evaluator->rotate_many_extended(ct, {0, 3});
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(evaluator->mod_down(terms[0]), ct);
  EXPECT_EQ(evaluator->mod_down(terms[1]), evaluator->rotate(ct, 3));
  // A stored term times a plaintext is the accumulated term.
  const Plaintext half = engine.encode_extended(std::vector<double>(engine.slot_count(), 0.5));
  Ciphertext accumulated;
  evaluator->accumulate_rotations(ct, {3}, {&half}, accumulated);
  EXPECT_EQ(evaluator->multiply_plain(terms[1], half), accumulated);
}

TEST_F(ExtendedSum, AtALowerLevelToo) {
  const Ciphertext low = evaluator->drop_level(ct, 2);
  const Plaintext one = extended_one(engine, *evaluator, 2);
  Ciphertext sum;
  evaluator->accumulate_rotations(low, {2}, {&one}, sum);
  EXPECT_EQ(evaluator->mod_down(sum), evaluator->rotate(low, 2));
}

TEST_F(ExtendedSum, DecryptsToTheSumOfPlaintextTimesRotation) {
  const Message d1 = testing::random_message(engine.slot_count(), 5);
  const Message d2 = testing::random_message(engine.slot_count(), 6);
  std::vector<double> r1(d1.size()), r2(d2.size());
  for (std::size_t i = 0; i < d1.size(); ++i) {
    r1[i] = d1[i].real();
    r2[i] = d2[i].real();
  }
  const Plaintext p1 = engine.encode_extended(r1), p2 = engine.encode_extended(r2);
  Ciphertext sum;
  evaluator->accumulate_rotations(ct, {1, 2}, {&p1, &p2}, sum);
  EXPECT_DOUBLE_EQ(sum.scale, ct.scale * p1.scale);
  const Ciphertext result = evaluator->mod_down_rescale(sum);
  Message expected(x.size());
  const std::size_t slots = x.size();
  for (std::size_t i = 0; i < slots; ++i) expected[i] = r1[i] * x[(i + 1) % slots] + r2[i] * x[(i + 2) % slots];
  EXPECT_LE(testing::max_abs_error(engine.decrypt_message(result), expected), 3e-5);
}

TEST_F(ExtendedSum, WordsDoNotDependOnHowTheStepsAreSplit) {
  std::vector<Plaintext> plains;
  for (int s = 0; s < 4; ++s) {
    std::vector<double> values(engine.slot_count(), 0.25 * (s + 1));
    plains.push_back(engine.encode_extended(values));
  }
  Ciphertext whole, split, other;
  evaluator->accumulate_rotations(ct, {0, 1, 2, 3}, {&plains[0], &plains[1], &plains[2], &plains[3]}, whole);
  evaluator->accumulate_rotations(ct, {2}, {&plains[2]}, split);
  evaluator->accumulate_rotations(ct, {3, 0}, {&plains[3], &plains[0]}, split);
  evaluator->accumulate_rotations(ct, {1}, {&plains[1]}, other);
  EXPECT_EQ(evaluator->mod_down(whole), evaluator->mod_down(evaluator->add(split, other)));
}

// The lift P x ct has zero P rows, so its c1 comes down to c1 exactly and
// its c0 permuted is P sigma(c0): the rotation of the lift is the term
// accumulate_rotations forms from ct, word for word.
TEST_F(ExtendedSum, RotatingTheLiftIsAccumulatingTheRotation) {
  const Ciphertext lift = evaluator->rotate_many_extended(ct, {0}).front();
  Ciphertext from_lift, from_ct;
  evaluator->accumulate_extended_rotation(lift, 3, from_lift);
  evaluator->accumulate_rotations(ct, {3}, {nullptr}, from_ct);
  EXPECT_EQ(from_lift, from_ct);
  evaluator->accumulate_extended_rotation(lift, 2, from_lift);
  evaluator->accumulate_rotations(ct, {2}, {nullptr}, from_ct);
  EXPECT_EQ(from_lift, from_ct);
}

TEST_F(ExtendedSum, StepZeroAddsTheExtendedSumItself) {
  const Ciphertext lift = evaluator->rotate_many_extended(ct, {0}).front();
  Ciphertext sum;
  evaluator->accumulate_extended_rotation(lift, 0, sum);
  EXPECT_EQ(sum, lift);
  evaluator->accumulate_extended_rotation(lift, 0, sum);
  EXPECT_EQ(sum, evaluator->add(lift, lift));
}

// A BSGS giant step: the rotation by 2 of (plaintext x rotation by 1) kept
// extended, with only its c1 brought down before the key switch.
TEST_F(ExtendedSum, RotatedInnerSumDecryptsToTheRotatedProduct) {
  const Message d = testing::random_message(engine.slot_count(), 7);
  std::vector<double> r(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) r[i] = d[i].real();
  const Plaintext plain = engine.encode_extended(r);
  const Ciphertext inner = evaluator->multiply_plain(evaluator->rotate_many_extended(ct, {1}).front(), plain);
  Ciphertext sum;
  evaluator->accumulate_extended_rotation(inner, 2, sum);
  EXPECT_DOUBLE_EQ(sum.scale, inner.scale);
  const Ciphertext result = evaluator->mod_down_rescale(sum);
  const std::size_t slots = x.size();
  Message expected(slots);
  for (std::size_t i = 0; i < slots; ++i) expected[i] = r[(i + 2) % slots] * x[(i + 3) % slots];
  EXPECT_LE(testing::max_abs_error(engine.decrypt_message(result), expected), 3e-5);
}

// P x ct has zero P rows: its residue mod P q_l is P [c]_(q_l) exactly, so
// the one division by P q_l is the rescale of ct, word for word.
TEST_F(ExtendedSum, ModDownRescaleOfTheLiftIsTheRescale) {
  EXPECT_EQ(evaluator->mod_down_rescale(evaluator->rotate_many_extended(ct, {0}).front()), evaluator->rescale(ct));
  const Ciphertext low = evaluator->drop_level(ct, 2);
  EXPECT_EQ(evaluator->mod_down_rescale(evaluator->rotate_many_extended(low, {0}).front()), evaluator->rescale(low));
}

// One rounding instead of two: each step's conversion is off by at most one
// unit a coefficient here (2 P rows; 3 dropped rows at once), so every
// coefficient is within 2 of the two steps' result, and some differ.
TEST_F(ExtendedSum, ModDownRescaleIsTheTwoStepsWithinTheirRounding) {
  const Plaintext p1 = engine.encode_extended(std::vector<double>(engine.slot_count(), 0.75));
  const Plaintext p2 = engine.encode_extended(std::vector<double>(engine.slot_count(), -0.5));
  Ciphertext sum;
  evaluator->accumulate_rotations(ct, {1, 2}, {&p1, &p2}, sum);
  const Ciphertext fused = evaluator->mod_down_rescale(sum);
  const Ciphertext steps = evaluator->rescale(evaluator->mod_down(sum));
  ASSERT_EQ(fused.level, steps.level);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_DOUBLE_EQ(fused.scale, steps.scale);
  std::uint64_t worst = 0;
  std::size_t differing = 0;
  for (std::size_t part = 0; part < 2; ++part) {
    RnsPoly a = fused.parts[part], b = steps.parts[part];
    const ntt::RowRange rows{a.first_row(), a.row_count()};
    ASSERT_EQ(rows.first, static_cast<std::size_t>(fused.level));
    engine.ntt_plan().inverse(a.data(), rows);
    engine.ntt_plan().inverse(b.data(), rows);
    for (std::size_t id = rows.first; id < rows.first + rows.count; ++id) {
      const std::uint64_t q = engine.rns_basis().prime(id);
      for (std::size_t k = 0; k < a.n(); ++k) {
        const std::uint64_t d = (a.row(id)[k] + q - b.row(id)[k]) % q;
        worst = std::max(worst, std::min(d, q - d));
        differing += d != 0;
      }
    }
  }
  EXPECT_LE(worst, 2u);
  EXPECT_GT(differing, 0u);
}

TEST_F(ExtendedSum, RefusesWhatIsNotAnExtendedSum) {
  const Plaintext ordinary = engine.encode(std::vector<double>{1.0});
  const Plaintext extended = engine.encode_extended(std::vector<double>{1.0});
  Ciphertext sum;
  EXPECT_THROW(evaluator->accumulate_rotations(ct, {1}, {&ordinary}, sum), InvalidArgument);
  EXPECT_THROW(evaluator->accumulate_rotations(ct, {1, 2}, {&extended}, sum), InvalidArgument);
  EXPECT_THROW(evaluator->accumulate_rotations(ct, {5}, {&extended}, sum), InvalidArgument);  // no key
  EXPECT_TRUE(sum.parts.empty());  // nothing half-done
  EXPECT_THROW(evaluator->mod_down(ct), InvalidArgument);  // Q rows only
  EXPECT_THROW(evaluator->mod_down_rescale(ct), InvalidArgument);
  const int last = engine.preset().levels;  // nothing below it to rescale to
  EXPECT_THROW(evaluator->mod_down_rescale(evaluator->rotate_many_extended(evaluator->drop_level(ct, last), {0}).front()),
               InvalidArgument);
  evaluator->accumulate_rotations(ct, {1}, {&extended}, sum);
  EXPECT_THROW(evaluator->accumulate_rotations(evaluator->drop_level(ct, 1), {1}, {&extended}, sum),
               InvalidArgument);

  Ciphertext rotated;
  EXPECT_THROW(evaluator->accumulate_extended_rotation(ct, 1, rotated), InvalidArgument);  // Q rows only
  EXPECT_THROW(evaluator->accumulate_extended_rotation(sum, 5, rotated), InvalidArgument);  // no key
  EXPECT_TRUE(rotated.parts.empty());
  const Ciphertext low = evaluator->rotate_many_extended(evaluator->drop_level(ct, 1), {0}).front();
  const Ciphertext before = sum;
  EXPECT_THROW(evaluator->accumulate_extended_rotation(low, 1, sum), InvalidArgument);  // another level
  EXPECT_THROW(evaluator->accumulate_extended_rotation(sum, 1, sum), InvalidArgument);  // aliasing
  EXPECT_EQ(sum, before);
}

}  // namespace
}  // namespace fhe
