// Key switching at chosen levels: level parsing, errors within tolerance,
// and fewer active rows at deeper levels.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "workloads/keyswitch/keyswitch_workload.h"

namespace {

using namespace fhe::workloads;

TEST(KeySwitchWorkload, ParsesLevelLists) {
  EXPECT_EQ(parse_levels("4,0,2,2", 6), (std::vector<int>{0, 2, 4}));
  EXPECT_THROW(parse_levels("0,,2", 6), fhe::InvalidArgument);
  EXPECT_THROW(parse_levels("0,x", 6), fhe::InvalidArgument);
  EXPECT_THROW(parse_levels("6", 6), fhe::InvalidArgument);  // needs a prime left to rescale into
  EXPECT_THROW(parse_levels("-1", 6), fhe::InvalidArgument);
}

TEST(KeySwitchWorkload, EveryLevelMeetsTolerance) {
  fhe::CkksEngine engine("test-slots2048-scale40-levels6-int64", {.seed = 9});
  engine.generate_keys({1});
  KeySwitchWorkload workload(engine, {0, 3, 5});
  ASSERT_EQ(workload.operations().size(), 6u);
  EXPECT_EQ(workload.operations()[3].name(), "rotate@level3");
  for (const auto& op : workload.operations()) {
    const auto output = workload.run(op);
    EXPECT_EQ(output.level, op.level);
    EXPECT_EQ(output.parts[0].row_count(), engine.preset().active_q_rows(op.level));
    // Relinearization keeps the product's scale^2; rotation is a plain key switch.
    EXPECT_LE(workload.max_abs_error(op, output),
              op.kind == KeySwitchKind::relinearize ? 3e-5 : 2e-5)
        << op.name();
  }
}

TEST(KeySwitchWorkload, NeedsItsKeys) {
  fhe::CkksEngine engine("test-slots512-scale40-levels3-int64", {.seed = 1});
  EXPECT_THROW(KeySwitchWorkload(engine, {0}), fhe::InvalidArgument);
  engine.generate_keys({2});
  EXPECT_THROW(KeySwitchWorkload(engine, {0}, 1), fhe::InvalidArgument);
}

}  // namespace
