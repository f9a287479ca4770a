// What `fhelium benchmark profile ntt` measures and reports: per kernel
// launch the counters read from Nsight Compute's raw page (or, without ncu,
// the static NttPlan::describe figures), and per backend and direction the
// totals of one transform. The CLI table, the JSON file and the report's
// profile contrast are all made from these types, so they cannot disagree.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/ntt/backend.h"
#include "recommend/ncu_csv.h"

namespace fhelium {

// The metrics asked of ncu with --metrics; the warp stall reasons come from
// the WarpStateStats section (kNcuStallSection), whose per-reason metrics
// are smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio:
// warps stalled for that reason per issued instruction, from hardware
// counters (no PC sampling), so every kernel of the range gets them.
const std::vector<std::string>& ncu_profile_metrics();
inline constexpr std::string_view kNcuStallSection = "WarpStateStats";
inline constexpr std::string_view kNcuStallPrefix = "smsp__average_warps_issue_stalled_";
inline constexpr std::string_view kNcuStallSuffix = "_per_issue_active.ratio";

// One kernel launch. NaN: not measured (describe figures, or ncu printed n/a).
struct KernelCounters {
  std::string kernel;
  std::string grid, block;  // "(16, 39, 1)"
  double duration_ns = NAN;
  double registers_per_thread = NAN;
  double static_shared_bytes = NAN, dynamic_shared_bytes = NAN;
  double achieved_occupancy_pct = NAN;
  double theoretical_blocks_per_sm = NAN;  // ncu: least of its occupancy limits; describe: occupancy API
  double l1_sectors = NAN;  // global loads and stores through L1TEX
  double l2_sectors = NAN;  // L2 reads and writes
  double dram_bytes = NAN;  // read + written; describe: the modelled bytes
  double instructions_issued = NAN;
  std::map<std::string, double> stall_per_issue;  // reason -> warps stalled per issued instruction
};

// Every row of the raw page, in launch order, with units made base units.
// Throws NcuOutputError when a number cannot be read.
std::vector<KernelCounters> kernel_counters(const NcuRawPage& page);

// The launches of one transform as NttPlan::describe gives them (a launch
// with launch_count k becomes k entries).
std::vector<KernelCounters> kernel_counters(const std::vector<fhe::ntt::LaunchDescription>& launches);

struct StallShare {
  std::string reason;
  double per_issue = 0;   // warps stalled per issued instruction, over the transform
  double share_pct = 0;   // of all stall reasons together
};

// One backend, one direction: totals per transform.
struct DirectionProfile {
  std::string backend;
  std::string direction;  // "forward" or "inverse"
  bool measured = false;  // true: ncu counters; false: describe figures
  std::string source;     // "ncu", or "describe (ncu unavailable: <reason>)"
  int transforms = 1;     // transforms in the profiled range; the totals are divided by it
  double launches = 0;
  double duration_us = NAN;             // summed kernel durations
  std::vector<double> registers_per_thread;       // distinct values, in launch order
  std::vector<double> shared_bytes_per_block;     // static + dynamic, distinct
  double achieved_occupancy_pct = NAN;  // kernels weighted by duration
  std::vector<double> theoretical_blocks_per_sm;  // distinct
  double l1_sectors = NAN, l2_sectors = NAN, dram_bytes = NAN;
  double dram_gb_per_s = NAN;           // dram_bytes / duration
  double dram_pct_of_peak = NAN;        // of the measured copy bandwidth
  std::vector<StallShare> top_stalls;   // at most 3, largest first
  std::vector<KernelCounters> kernels;  // as profiled (all transforms)
};

// Totals of `kernels` (one or more transforms; InvalidArgument when empty).
// `peak_gb_per_s` NaN leaves the percentage of peak unset.
DirectionProfile aggregate_profile(const std::string& backend, const std::string& direction,
                                   const std::vector<KernelCounters>& kernels, int transforms,
                                   bool measured, const std::string& source, double peak_gb_per_s);

nlohmann::json to_json(const KernelCounters& kernel);
nlohmann::json to_json(const DirectionProfile& profile);
// Throws InvalidArgument when a field is missing or of the wrong type.
DirectionProfile direction_profile_from_json(const nlohmann::json& json);

// The table of the CLI and of the report's profile contrast.
std::vector<std::string> profile_table_header();
std::vector<std::string> profile_table_row(const DirectionProfile& profile);

}  // namespace fhelium
