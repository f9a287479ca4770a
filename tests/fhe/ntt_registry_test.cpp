// The backend registry: exact names, the strict-radix rule, schedules.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "ntt_test_util.h"

namespace {

using fhe::ntt::PassKind;

TEST(NttRegistry, SevenExactNamesInSpecOrder) {
  std::vector<std::string> names;
  for (const auto& b : fhe::ntt::all_backends()) names.emplace_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "radix2_indexed", "radix2_compact_group4_smem8",
                       "radix2_compact_group8_smem8", "radix2_compact_group16_smem8",
                       "radix4_compact", "radix8_compact", "radix16_compact"}));
  EXPECT_THROW(fhe::ntt::backend_info("radix2"), fhe::InvalidArgument);
  EXPECT_THROW(fhe::ntt::backend_info("RADIX4_COMPACT"), fhe::InvalidArgument);
}

TEST(NttRegistry, StrictRadixRuleOfSpec) {
  auto ok = [](const char* name, int log_n) {
    return fhe::ntt::compatibility(fhe::ntt::backend_info(name), log_n).compatible;
  };
  // SPEC: logN 14: radix4; 15: radix8; 16: radix4 and radix16; 17: none.
  EXPECT_TRUE(ok("radix4_compact", 14));
  EXPECT_FALSE(ok("radix8_compact", 14));
  EXPECT_FALSE(ok("radix16_compact", 14));
  EXPECT_FALSE(ok("radix4_compact", 15));
  EXPECT_TRUE(ok("radix8_compact", 15));
  EXPECT_FALSE(ok("radix16_compact", 15));
  EXPECT_TRUE(ok("radix4_compact", 16));
  EXPECT_FALSE(ok("radix8_compact", 16));
  EXPECT_TRUE(ok("radix16_compact", 16));
  EXPECT_FALSE(ok("radix4_compact", 17));
  EXPECT_FALSE(ok("radix8_compact", 17));
  EXPECT_FALSE(ok("radix16_compact", 17));
  for (int log_n = 10; log_n <= 17; ++log_n) {
    EXPECT_TRUE(ok("radix2_indexed", log_n));
    EXPECT_TRUE(ok("radix2_compact_group8_smem8", log_n));
  }
  const auto reason =
      fhe::ntt::compatibility(fhe::ntt::backend_info("radix16_compact"), 17).reason;
  EXPECT_NE(reason.find("divisible by 4"), std::string::npos) << reason;
}

TEST(NttRegistry, IncompatiblePlanIsRefused) {
  auto moduli = fhe::testing::ntt_moduli(17, 1, 60);
  EXPECT_THROW(fhe::ntt::make_plan("radix8_compact", {}, 17, moduli, fhe::WordType::int64),
               fhe::InvalidArgument);
}

TEST(NttRegistry, SchedulesFollowTheFactorizations) {
  auto passes = [](const char* name, int log_n) {
    return fhe::ntt::make_schedule(fhe::ntt::backend_info(name), log_n).passes;
  };
  // radix2_indexed: one stage per pass.
  EXPECT_EQ(passes("radix2_indexed", 16).size(), 16u);
  // group8 at logN 16: 8 global stages as 3+3+2, then the 8-stage tail.
  auto g8 = passes("radix2_compact_group8_smem8", 16);
  ASSERT_EQ(g8.size(), 4u);
  EXPECT_EQ(g8[0].stage_count, 3);
  EXPECT_EQ(g8[2].stage_count, 2);
  EXPECT_EQ(g8[3].kind, PassKind::shared_region);
  EXPECT_EQ(g8[3].first_stage, 8);
  EXPECT_EQ(g8[3].stage_count, 8);
  // radix16 at logN 16: D=4, H=2 -> 2 global digits + 1 region = D-H+1 = 3.
  auto r16 = passes("radix16_compact", 16);
  ASSERT_EQ(r16.size(), 3u);
  EXPECT_EQ(r16[2].digit_count, 2);
  // radix8 at logN 15: D=5, H=2 -> 4 passes, region of 6 bits.
  auto r8 = passes("radix8_compact", 15);
  ASSERT_EQ(r8.size(), 4u);
  EXPECT_EQ(r8[3].stage_count, 6);
  // radix4 at logN 14: D=7, H=4 -> 4 passes.
  EXPECT_EQ(passes("radix4_compact", 14).size(), 4u);
  // Every schedule covers each stage exactly once, in order.
  for (const auto& b : fhe::ntt::all_backends()) {
    for (int log_n = 10; log_n <= 17; ++log_n) {
      if (!fhe::ntt::compatibility(b, log_n).compatible) continue;
      int next = 0;
      for (const auto& pass : passes(std::string(b.name).c_str(), log_n)) {
        EXPECT_EQ(pass.first_stage, next);
        next += pass.stage_count;
      }
      EXPECT_EQ(next, log_n) << b.name;
    }
  }
}

TEST(NttRegistry, StableFallbackAndDefaults) {
  EXPECT_EQ(fhe::ntt::kStableFallback, "radix2_compact_group8_smem8");
  EXPECT_EQ(fhe::ntt::default_backend(fhe::DeviceKind::cuda), "radix2_compact_group8_smem8");
  EXPECT_EQ(fhe::ntt::default_backend(fhe::DeviceKind::cpu), "radix2_indexed");
}

TEST(NttRegistry, DeviceStrings) {
  EXPECT_EQ(fhe::parse_device("cpu").kind, fhe::DeviceKind::cpu);
  EXPECT_EQ(fhe::parse_device("cuda:3").index, 3);
  for (const char* bad : {"gpu", "cuda", "cuda:", "cuda:-1", "cuda:1x", "CPU", ""}) {
    EXPECT_THROW(fhe::parse_device(bad), fhe::InvalidArgument) << bad;
  }
}

}  // namespace
