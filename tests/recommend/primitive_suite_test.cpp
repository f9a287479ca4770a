// The ckks-primitive suite on the CPU at the smallest test preset: keys
// built once, every primitive within the decryption-error gate, complete
// evidence.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "fhe/params/preset.h"
#include "recommend/primitive_suite.h"
#include "recommend/recommend_run.h"
#include "tests/recommend/test_support.h"

namespace fhelium {
namespace {

TEST(PrimitiveSuite, CpuRunPassesTheGateAndTimesEveryPrimitive) {
  test::TempDir dir;
  RecommendOptions options;
  options.suite = "ckks-primitive";
  options.preset = "test-slots512-scale40-levels3-int64";
  options.device = "cpu";
  options.backends = {"radix2_indexed", "radix2_compact_group8_smem8"};
  options.warmup = 0;
  options.runs = 2;
  options.repetitions = 1;
  options.seed = 5;
  options.output = (dir.path() / "primitives.json").string();
  const RecommendPlan plan = resolve_request(options);
  auto suite = make_suite(plan);
  const nlohmann::json doc = run_recommendation(plan, *suite, {"test"});

  ASSERT_EQ(doc["correctness"].size(), 2u);
  for (const auto& c : doc["correctness"]) {
    EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
    for (const auto& [op, error] : c["checks"]["max_abs_error"].items())
      EXPECT_LT(error.get<double>(), 1e-4) << op;
    EXPECT_EQ(c["checks"]["max_abs_error"].size(), 7u);  // encrypt/decrypt, multiply, rotate, 4 hoisted
  }
  EXPECT_EQ(doc["metadata"]["operations"].size(), 5u);
  EXPECT_EQ(doc["evidence"].size(), 2u * 5u);
  EXPECT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["recommendation"]["confidence"], "low");
}

TEST(PrimitiveSuite, TheLastLevelIsRejectedBeforeAnyWork) {
  RecommendOptions options;
  options.suite = "ckks-primitive";
  options.preset = "test-slots512-scale40-levels3-int64";
  options.device = "cpu";
  options.level = 3;
  EXPECT_THROW(resolve_request(options), fhe::InvalidArgument);
}

// Every backend's engine is held at once: a host or device that cannot hold
// them all is refused up front, with how many backends would fit.
TEST(PrimitiveSuite, MemoryForEveryBackendIsCheckedBeforeAnyKey) {
  const fhe::Preset& preset = fhe::preset_by_name("slots32768-scale40-levels34-int64");
  // Per backend on the host: 5 key-switching keys of 390 MiB (and more).
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_NO_THROW(require_primitive_backends_fit(preset, fhe::DeviceKind::cpu, 7, {7 * 4 * gib, "the host"}));
  try {
    require_primitive_backends_fit(preset, fhe::DeviceKind::cpu, 7, {6 * gib, "the host"});
    ADD_FAILURE() << "7 backends in 6 GiB were not refused";
  } catch (const fhe::DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ckks-primitive suite at slots32768-scale40-levels34-int64 holds every backend at once: "
                           "7 x (keys "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("but the host has 6.00 GiB free; at most 2 backends fit"), std::string::npos) << message;
  }
  // The device side counts the compact device keys: less than the host's.
  EXPECT_THROW(require_primitive_backends_fit(preset, fhe::DeviceKind::cuda, 7, {2 * gib, "cuda:0"}),
               fhe::DeviceError);
  EXPECT_NO_THROW(require_primitive_backends_fit(preset, fhe::DeviceKind::cuda, 2, {6 * gib, "cuda:0"}));
}

}  // namespace
}  // namespace fhelium
