// Key switching at chosen levels: level and step parsing, the shared
// problem (deterministic inputs, the reference of both operations, the
// worst-slot record), errors within tolerance, fewer active rows at deeper
// levels, and a corrupted output read as a large error.
#include <gtest/gtest.h>

#include <cmath>

#include "evaluator/evaluator.h"
#include "fhe/core/error.h"
#include "workloads/keyswitch/keyswitch_workload.h"

namespace {

using namespace fhe::workloads;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

TEST(KeySwitchWorkload, ParsesLevelLists) {
  EXPECT_EQ(parse_levels("4,0,2,2", 6), (std::vector<int>{0, 2, 4}));
  EXPECT_THROW(parse_levels("0,,2", 6), fhe::InvalidArgument);
  EXPECT_THROW(parse_levels("0,x", 6), fhe::InvalidArgument);
  EXPECT_THROW(parse_levels("", 6), fhe::InvalidArgument);
  EXPECT_THROW(parse_levels("6", 6), fhe::InvalidArgument);  // needs a prime left to rescale into
  EXPECT_THROW(parse_levels("-1", 6), fhe::InvalidArgument);
}

TEST(KeySwitchWorkload, RefusesIdentityRotationSteps) {
  EXPECT_NO_THROW(check_rotation_step(1, 2048));
  EXPECT_NO_THROW(check_rotation_step(-2047, 2048));
  for (int step : {0, 2048, -4096}) {
    try {
      check_rotation_step(step, 2048);
      ADD_FAILURE() << "step " << step << " accepted";
    } catch (const fhe::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("is a multiple of the 2048 slots"), std::string::npos) << e.what();
    }
  }
}

TEST(KeySwitchWorkload, OperationsAreRelinearizeThenRotatePerLevel) {
  const auto ops = key_switch_operations({0, 3});
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].name(), "relinearize@level0");
  EXPECT_EQ(ops[1].name(), "rotate@level0");
  EXPECT_EQ(ops[2].name(), "relinearize@level3");
  EXPECT_EQ(ops[3].name(), "rotate@level3");
}

TEST(KeySwitchWorkload, EveryLevelMeetsTolerance) {
  fhe::CkksEngine engine(kPreset, {.seed = 9});
  engine.generate_keys({1});
  KeySwitchWorkload workload(engine, {0, 3, 5});
  ASSERT_EQ(workload.operations().size(), 6u);
  EXPECT_EQ(workload.operations()[3].name(), "rotate@level3");
  for (const auto& op : workload.operations()) {
    const auto output = workload.run(op);
    EXPECT_EQ(output.level, op.level);
    EXPECT_EQ(output.size(), 2u);
    EXPECT_EQ(output.parts[0].row_count(), engine.preset().active_q_rows(op.level));
    // Relinearization keeps the product's scale^2; rotation is a plain key switch.
    const double error = workload.max_abs_error(op, output);
    EXPECT_GT(error, 0.0) << op.name();  // CKKS is approximate: 0 would mean nothing was compared
    EXPECT_LE(error, op.kind == KeySwitchKind::relinearize ? 3e-5 : 2e-5) << op.name();
  }
}

TEST(KeySwitchWorkload, NeedsItsKeys) {
  fhe::CkksEngine engine("test-slots512-scale40-levels3-int64", {.seed = 1});
  EXPECT_THROW(KeySwitchWorkload(engine, {0}), fhe::InvalidArgument);
  engine.generate_keys({2});
  EXPECT_THROW(KeySwitchWorkload(engine, {0}, 1), fhe::InvalidArgument);
  EXPECT_THROW(KeySwitchWorkload(engine, {0}, 512), fhe::InvalidArgument);  // the identity
  EXPECT_THROW(KeySwitchWorkload(engine, {4}, 2), fhe::InvalidArgument);    // beyond L = 3
}

TEST(KeySwitchProblem, SameSeedSameInputsAndTheWorkloadUsesThem) {
  fhe::CkksEngine a(kPreset, {.seed = 4}), b(kPreset, {.seed = 4});
  a.generate_keys({-3});
  b.generate_keys({-3});
  const KeySwitchProblem problem(a, {1, 4}, -3);
  const KeySwitchWorkload workload(b, {1, 4}, -3);
  ASSERT_EQ(problem.inputs().size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& mine = problem.inputs()[i];
    const auto& theirs = workload.problem().inputs()[i];
    EXPECT_EQ(mine.level, theirs.level);
    EXPECT_EQ(mine.values, theirs.values);
    EXPECT_TRUE(mine.fresh == theirs.fresh) << "level " << mine.level;  // every word
    EXPECT_EQ(mine.fresh.level, mine.level);
  }
  EXPECT_EQ(problem.input_index(4), 1u);
  EXPECT_THROW(problem.input(2), fhe::InvalidArgument);
}

TEST(KeySwitchProblem, ExpectedSlotsFollowTheOperation) {
  fhe::CkksEngine engine(kPreset, {.seed = 2});
  engine.generate_keys({-3});
  const KeySwitchProblem problem(engine, {2}, -3);
  const auto& values = problem.input(2).values;
  const std::size_t slots = values.size();
  ASSERT_EQ(slots, 2048u);
  const KeySwitchOperation relinearize{KeySwitchKind::relinearize, 2}, rotate{KeySwitchKind::rotate, 2};
  EXPECT_EQ(problem.expected(relinearize, 7), values[7] * values[7]);
  // Left rotation by -3 is a right rotation by 3: slot j receives slot j - 3.
  EXPECT_EQ(problem.expected(rotate, 10), values[7]);
  EXPECT_EQ(problem.expected(rotate, 0), values[slots - 3]);
  EXPECT_EQ(problem.expected(rotate, 2), values[slots - 1]);
}

TEST(KeySwitchProblem, ACorruptedOutputIsALargeErrorAtItsWorstSlot) {
  fhe::CkksEngine engine(kPreset, {.seed = 6});
  engine.generate_keys({1});
  KeySwitchWorkload workload(engine, {0}, 1);
  const KeySwitchOperation& rotate = workload.operations()[1];
  fhe::Ciphertext output = workload.run(rotate);
  const KeySwitchError good = workload.problem().error(rotate, output);
  EXPECT_LE(good.max_abs_error, 2e-5);
  EXPECT_EQ(std::abs(good.decrypted - good.expected), good.max_abs_error);
  EXPECT_EQ(good.expected, workload.problem().expected(rotate, good.worst_slot));
  // One NTT-domain word + 1 in the last row: that row's coefficients all
  // change, and decoding reads the trailing rows (the message fits them).
  fhe::RnsPoly& part = output.parts[0];
  const std::size_t last = part.end_row() - 1;
  part.row(last)[0] = (part.row(last)[0] + 1) % engine.preset().q_primes[last];
  const KeySwitchError bad = workload.problem().error(rotate, output);
  EXPECT_GT(bad.max_abs_error, 1.0);
  EXPECT_TRUE(std::isfinite(bad.max_abs_error));
  EXPECT_EQ(bad.expected, workload.problem().expected(rotate, bad.worst_slot));
}

}  // namespace
