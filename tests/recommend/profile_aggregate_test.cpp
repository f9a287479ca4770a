// Counters per kernel from the raw-page fixture, their totals per transform,
// the describe fallback's figures, the table cells and the JSON round trip.
#include <gtest/gtest.h>

#include <cmath>

#include "fhe/core/error.h"
#include "recommend/ntt_profile.h"
#include "tests/recommend/profile_test_support.h"

namespace fhelium {
namespace {

using namespace test;

TEST(ProfileAggregate, KernelCountersReadEveryMetricOfTheFixture) {
  const auto kernels = fixture_kernels();
  ASSERT_EQ(kernels.size(), 3u);
  const KernelCounters& global = kernels[0];
  EXPECT_EQ(global.kernel,
            "void fhe::ntt::gpu::<unnamed>::ntt_global_pass<unsigned long, 4, true>(fhe::ntt::gpu::PassArgs<T1>)");
  EXPECT_EQ(global.grid, "(16, 39, 1)");
  EXPECT_EQ(global.block, "(256, 1, 1)");
  EXPECT_EQ(global.duration_ns, 12288.0);
  EXPECT_EQ(global.registers_per_thread, 124.0);
  EXPECT_EQ(global.static_shared_bytes, 0.0);
  EXPECT_EQ(global.achieved_occupancy_pct, 23.5);
  EXPECT_EQ(global.theoretical_blocks_per_sm, 2.0);  // the registers' limit, the tightest of four
  EXPECT_EQ(global.l1_sectors, 2 * 638976.0);
  EXPECT_EQ(global.l2_sectors, 655360.0 + 638976.0);
  EXPECT_EQ(global.dram_bytes, 2 * 20447232.0);
  EXPECT_EQ(global.instructions_issued, 1.2e6);
  // Six stall reasons; "selected" (the issuing warp) is not one.
  EXPECT_EQ(global.stall_per_issue.size(), 6u);
  EXPECT_EQ(global.stall_per_issue.count("selected"), 0u);
  EXPECT_EQ(global.stall_per_issue.at("long_scoreboard"), 6.0);
  EXPECT_EQ(kernels[2].dynamic_shared_bytes, 34816.0);
  EXPECT_EQ(kernels[2].stall_per_issue.at("short_scoreboard"), 1.2);
}

TEST(ProfileAggregate, TheoreticalBlocksAreTheTightestOccupancyLimit) {
  const NcuRawPage page = parse_ncu_raw_page(
      "\"ID\",\"Kernel Name\",\"launch__occupancy_limit_blocks\",\"launch__occupancy_limit_registers\","
      "\"launch__occupancy_limit_shared_mem\",\"launch__occupancy_limit_warps\"\n"
      "\"\",\"\",\"block\",\"block\",\"block\",\"block\"\n"
      "\"0\",\"k\",\"32\",\"3\",\"2\",\"8\"\n");
  EXPECT_EQ(kernel_counters(page).front().theoretical_blocks_per_sm, 2.0);
}

TEST(ProfileAggregate, TotalsPerTransformFromTheFixture) {
  const DirectionProfile p =
      aggregate_profile("radix16_compact", "forward", fixture_kernels(), 1, true, "ncu", 4800.0);
  EXPECT_EQ(p.launches, 3.0);
  EXPECT_DOUBLE_EQ(p.duration_us, kFixtureDurationNs / 1e3);
  EXPECT_EQ(p.registers_per_thread, (std::vector<double>{124, 116}));
  EXPECT_EQ(p.shared_bytes_per_block, (std::vector<double>{0, 34816}));
  EXPECT_EQ(p.theoretical_blocks_per_sm, (std::vector<double>{2}));
  EXPECT_DOUBLE_EQ(p.achieved_occupancy_pct, (23.5 * 12288 + 24.1 * 12544 + 22.0 * 24576) / kFixtureDurationNs);
  EXPECT_EQ(p.l1_sectors, 4 * 638976.0 + 2 * 1277952.0);
  EXPECT_EQ(p.l2_sectors, 655360.0 + 657408.0 + 1310720.0 + 3 * 638976.0 + 638976.0);
  EXPECT_EQ(p.dram_bytes, kFixtureDramBytes);
  EXPECT_DOUBLE_EQ(p.dram_gb_per_s, kFixtureDramBytes / kFixtureDurationNs);
  EXPECT_DOUBLE_EQ(p.dram_pct_of_peak, 100.0 * kFixtureDramBytes / kFixtureDurationNs / 4800.0);
  // Stalls weighted by issued instructions (1.2M, 1.2M, 2.4M): long_scoreboard
  // 0.25*6 + 0.25*6 + 0.5*2 = 4, barrier 0.5*4 = 2, wait 1, of 8.6 in all.
  ASSERT_EQ(p.top_stalls.size(), 3u);
  EXPECT_EQ(p.top_stalls[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(p.top_stalls[0].per_issue, 4.0);
  EXPECT_DOUBLE_EQ(p.top_stalls[0].share_pct, 100.0 * 4.0 / 8.6);
  EXPECT_EQ(p.top_stalls[1].reason, "barrier");
  EXPECT_DOUBLE_EQ(p.top_stalls[1].per_issue, 2.0);
  EXPECT_EQ(p.top_stalls[2].reason, "wait");
  EXPECT_DOUBLE_EQ(p.top_stalls[2].share_pct, 100.0 * 1.0 / 8.6);

  EXPECT_EQ(profile_table_row(p),
            (std::vector<std::string>{"radix16_compact", "forward", "ncu", "3", "49.41", "124/116", "0/34816", "22.9",
                                      "2", "5111808", "5179392", "163.64", "3312 (69.0%)",
                                      "long_scoreboard 4.00 (47%), barrier 2.00 (23%), wait 1.00 (12%)"}));
  EXPECT_EQ(profile_table_row(p).size(), profile_table_header().size());
}

TEST(ProfileAggregate, SeveralTransformsAreNormalisedPerTransform) {
  auto kernels = fixture_kernels();
  const auto once = kernels;
  kernels.insert(kernels.end(), once.begin(), once.end());
  const DirectionProfile p = aggregate_profile("b", "inverse", kernels, 2, true, "ncu", 4800.0);
  EXPECT_EQ(p.launches, 3.0);
  EXPECT_DOUBLE_EQ(p.duration_us, kFixtureDurationNs / 1e3);
  EXPECT_EQ(p.dram_bytes, kFixtureDramBytes);
  EXPECT_EQ(p.kernels.size(), 6u);
  EXPECT_THROW(aggregate_profile("b", "inverse", kernels, 0, true, "ncu", 4800.0), fhe::InvalidArgument);
  EXPECT_THROW(aggregate_profile("b", "inverse", {}, 1, true, "ncu", 4800.0), fhe::InvalidArgument);
}

TEST(ProfileAggregate, DescribeFiguresLeaveMeasuredColumnsUnknown) {
  const auto kernels = described_kernels();
  ASSERT_EQ(kernels.size(), 3u);  // launch_count 2 gives two launches
  EXPECT_EQ(kernels[0].dram_bytes, 81948048.0 / 2);
  EXPECT_EQ(kernels[1].grid, "(16, 39, 1)");
  const DirectionProfile p =
      aggregate_profile("radix16_compact", "forward", kernels, 1, false, "describe (ncu unavailable: test)", NAN);
  EXPECT_EQ(p.dram_bytes, 81948048.0 + 81629184.0);
  EXPECT_TRUE(std::isnan(p.duration_us));
  EXPECT_TRUE(p.top_stalls.empty());
  EXPECT_EQ(profile_table_row(p),
            (std::vector<std::string>{"radix16_compact", "forward", "describe (ncu unavailable)", "3", "n/a", "124/116",
                                      "0/34816", "n/a", "2", "n/a", "n/a", "163.58 (modelled)", "n/a", "n/a"}));

  // A CPU plan's passes have no launch shape or GPU resources.
  fhe::ntt::LaunchDescription host;
  host.kernel = "host_pass";
  host.modelled_dram_bytes = 1000;
  const auto cpu = kernel_counters(std::vector<fhe::ntt::LaunchDescription>{host});
  EXPECT_EQ(cpu[0].grid, "");
  EXPECT_TRUE(std::isnan(cpu[0].registers_per_thread));
}

TEST(ProfileAggregate, JsonRoundTripKeepsTheTable) {
  const DirectionProfile p = aggregate_profile("radix16_compact", "forward", fixture_kernels(), 1, true, "ncu", 4800.0);
  const nlohmann::json json = to_json(p);
  EXPECT_EQ(json["kernels"].size(), 3u);
  EXPECT_EQ(json["kernels"][2]["stall_per_issue"]["barrier"], 4.0);
  const DirectionProfile back = direction_profile_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(profile_table_row(back), profile_table_row(p));

  fhe::ntt::LaunchDescription launch;
  launch.kernel = "ntt_shared_region<u64,s8,inverse>";
  launch.block[0] = 256;
  launch.modelled_dram_bytes = 81629184;
  const DirectionProfile described = aggregate_profile(
      "b", "inverse", kernel_counters(std::vector<fhe::ntt::LaunchDescription>{launch}), 1, false, "describe (x)", NAN);
  EXPECT_TRUE(to_json(described)["duration_us"].is_null());  // NaN is written as null
  EXPECT_EQ(profile_table_row(direction_profile_from_json(to_json(described))), profile_table_row(described));

  nlohmann::json broken = json;
  broken.erase("dram_bytes");
  EXPECT_THROW(direction_profile_from_json(broken), fhe::InvalidArgument);
  broken = json;
  broken["launches"] = "three";
  EXPECT_THROW(direction_profile_from_json(broken), fhe::InvalidArgument);
}

}  // namespace
}  // namespace fhelium
