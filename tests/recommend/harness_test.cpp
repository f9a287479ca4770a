// The harness's mechanics with a scripted suite: build once, gate first,
// restore before every sample, warm-up discarded, order rotated, every raw
// sample kept, failing backends never timed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "fhe/core/error.h"
#include "recommend/harness.h"

namespace fhelium {
namespace {

class ScriptedSuite : public Suite {
 public:
  std::set<std::string> failing;
  std::vector<std::string> log;
  int calls = 0;

  std::string_view name() const override { return "scripted"; }
  const std::vector<std::string>& operations() const override { return ops_; }
  TimedBoundary timed_boundary() const override { return {{"nothing"}, {}, "none"}; }
  void prepare(const std::string& b) override { log.push_back("prepare " + b); }
  CorrectnessRecord check_correctness(const std::string& b) override {
    log.push_back("check " + b);
    const bool ok = failing.count(b) == 0;
    return {b, ok, ok ? "ok" : "broken", nlohmann::json::object(), nullptr, ""};
  }
  void restore_input(const std::string& b, std::size_t op) override {
    log.push_back("restore " + b + " " + ops_[op]);
  }
  double time_once(const std::string& b, std::size_t op) override {
    log.push_back("time " + b + " " + ops_[op]);
    return 1.0 + ++calls;  // distinct values reveal which ones were kept
  }

 private:
  std::vector<std::string> ops_ = {"op0", "op1"};
};

TEST(Harness, RotatedOrder) {
  const std::vector<std::string> list = {"a", "b", "c"};
  EXPECT_EQ(rotated_order(list, 0), list);
  EXPECT_EQ(rotated_order(list, 1), (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_EQ(rotated_order(list, 4), (std::vector<std::string>{"b", "c", "a"}));
}

TEST(Harness, CountsAreValidated) {
  EXPECT_THROW(validate_harness_counts(-1, 10, 3), fhe::InvalidArgument);
  EXPECT_THROW(validate_harness_counts(3, 0, 3), fhe::InvalidArgument);
  EXPECT_THROW(validate_harness_counts(3, 10, 0), fhe::InvalidArgument);
  EXPECT_NO_THROW(validate_harness_counts(0, 1, 1));
}

TEST(Harness, GatesThenTimesWithRestoreBeforeEverySample) {
  ScriptedSuite suite;
  suite.failing = {"bad"};
  HarnessOptions options;
  options.warmup = 2;
  options.runs = 3;
  options.repetitions = 2;
  const HarnessResult result = run_harness(suite, {"a", "bad", "c"}, options);

  // Build and check every backend before the first sample.
  const auto first_time = std::find_if(suite.log.begin(), suite.log.end(),
                                       [](const std::string& s) { return s.rfind("time", 0) == 0; });
  const std::vector<std::string> setup(suite.log.begin(), first_time);
  EXPECT_EQ(std::count_if(setup.begin(), setup.end(), [](const std::string& s) { return s.rfind("prepare", 0) == 0; }), 3);
  EXPECT_EQ(std::count_if(setup.begin(), setup.end(), [](const std::string& s) { return s.rfind("check", 0) == 0; }), 3);

  // The failing backend is recorded and never timed.
  ASSERT_EQ(result.correctness.size(), 3u);
  EXPECT_FALSE(result.correctness[1].passed);
  EXPECT_EQ(result.ranked_backends, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(std::count(suite.log.begin(), suite.log.end(), "time bad op0"), 0);

  // Every execution (warm-up and timed) follows a restore of its input.
  for (std::size_t i = 0; i < suite.log.size(); ++i) {
    if (suite.log[i].rfind("time ", 0) != 0) continue;
    ASSERT_GT(i, 0u);
    EXPECT_EQ(suite.log[i - 1], "restore " + suite.log[i].substr(5));
  }
  // 2 backends x 2 ops x 2 repetitions x (2 warm-up + 3 timed).
  EXPECT_EQ(suite.calls, 2 * 2 * 2 * 5);
  EXPECT_EQ(result.measurement_orders,
            (std::vector<std::vector<std::string>>{{"a", "c"}, {"c", "a"}}));

  // Raw samples: the three timed values after the two warm-ups of each series.
  ASSERT_EQ(result.series.size(), 8u);
  EXPECT_EQ(result.series[0].backend, "a");
  EXPECT_EQ(result.series[0].operation, "op0");
  EXPECT_EQ(result.series[0].samples_ms, (std::vector<double>{4.0, 5.0, 6.0}));
  EXPECT_EQ(result.series[4].backend, "c");  // repetition 1 starts with c
  EXPECT_EQ(result.series[4].repetition, 1);
  EXPECT_TRUE(result.series[0].sm_clock_mhz.empty());
  EXPECT_EQ(result.timer, "steady_clock");
  EXPECT_EQ(result.clock_probe, "not applicable (cpu)");
}

}  // namespace
}  // namespace fhelium
