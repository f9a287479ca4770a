// Reading counters per kernel and adding them up per transform.
#include "recommend/ntt_profile.h"

#include <algorithm>

#include "fhe/core/error.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

constexpr const char* kDuration = "gpu__time_duration.sum";
constexpr const char* kRegisters = "launch__registers_per_thread";
constexpr const char* kStaticShared = "launch__shared_mem_per_block_static";
constexpr const char* kDynamicShared = "launch__shared_mem_per_block_dynamic";
constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kL1Load = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* kL1Store = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr const char* kL2Read = "lts__t_sectors_op_read.sum";
constexpr const char* kL2Write = "lts__t_sectors_op_write.sum";
constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kIssued = "smsp__inst_issued.sum";
// Theoretical resident blocks per SM: the tightest of these limits.
constexpr const char* kOccupancyLimits[] = {"launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                                            "launch__occupancy_limit_shared_mem",
                                            "launch__occupancy_limit_warps"};

// A NaN in any term makes the sum unknown rather than silently smaller.
double sum_of(const std::vector<KernelCounters>& kernels, double KernelCounters::*field) {
  double total = 0;
  for (const auto& k : kernels) total += k.*field;
  return total;
}

void add_distinct(std::vector<double>& values, double value) {
  if (std::isnan(value)) return;
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

// Mean of `field` weighted by `weight`; NaN when a value or weight is.
double weighted_mean(const std::vector<KernelCounters>& kernels, double KernelCounters::*field,
                     double KernelCounters::*weight) {
  double total = 0, weights = 0;
  for (const auto& k : kernels) {
    total += k.*field * k.*weight;
    weights += k.*weight;
  }
  return weights > 0 ? total / weights : NAN;
}

// Stall reasons of the transform: per-kernel ratios weighted by issued
// instructions (a ratio per issued instruction adds up that way), falling
// back to duration weights when issue counts are missing.
std::vector<StallShare> top_stalls(const std::vector<KernelCounters>& kernels) {
  bool by_issued = true;
  for (const auto& k : kernels) by_issued = by_issued && !std::isnan(k.instructions_issued);
  std::map<std::string, double> weighted;
  double weights = 0;
  for (const auto& k : kernels) {
    const double w = by_issued ? k.instructions_issued : k.duration_ns;
    if (std::isnan(w) || k.stall_per_issue.empty()) continue;
    weights += w;
    for (const auto& [reason, value] : k.stall_per_issue)
      if (!std::isnan(value)) weighted[reason] += value * w;
  }
  if (weights <= 0) return {};
  std::vector<StallShare> out;
  double all = 0;
  for (const auto& [reason, total] : weighted) {
    out.push_back({reason, total / weights, 0});
    all += total / weights;
  }
  for (auto& s : out) s.share_pct = all > 0 ? 100.0 * s.per_issue / all : NAN;
  std::stable_sort(out.begin(), out.end(), [](const StallShare& a, const StallShare& b) {
    return a.per_issue > b.per_issue;
  });
  if (out.size() > 3) out.resize(3);
  return out;
}

// JSON has no NaN: unknown numbers are null both ways.
nlohmann::json number(double value) { return std::isnan(value) ? nlohmann::json() : nlohmann::json(value); }

double number_at(const nlohmann::json& object, const char* key) {
  if (!object.contains(key)) throw fhe::InvalidArgument(std::string("profile field '") + key + "' is missing");
  const auto& value = object.at(key);
  if (value.is_null()) return NAN;
  if (!value.is_number()) throw fhe::InvalidArgument(std::string("profile field '") + key + "' is not a number");
  return value.get<double>();
}

std::vector<double> numbers_at(const nlohmann::json& object, const char* key) {
  std::vector<double> out;
  if (!object.contains(key) || !object.at(key).is_array())
    throw fhe::InvalidArgument(std::string("profile field '") + key + "' is not a list");
  for (const auto& v : object.at(key)) out.push_back(v.get<double>());
  return out;
}

std::string shape(const unsigned (&dims)[3]) {
  return "(" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " + std::to_string(dims[2]) + ")";
}

std::string cell(double value, int decimals) { return std::isnan(value) ? "n/a" : format_number(value, decimals); }

std::string distinct_cell(const std::vector<double>& values) {
  std::string out;
  for (double v : values) {
    if (!out.empty()) out += '/';
    out += format_number(v, 0);
  }
  return out.empty() ? "n/a" : out;
}

}  // namespace

const std::vector<std::string>& ncu_profile_metrics() {
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> m = {kDuration, kRegisters, kStaticShared, kDynamicShared, kAchievedOccupancy,
                                  kL1Load,   kL1Store,   kL2Read,       kL2Write,       kDramRead,
                                  kDramWrite, kIssued};
    m.insert(m.end(), std::begin(kOccupancyLimits), std::end(kOccupancyLimits));
    return m;
  }();
  return metrics;
}

std::vector<KernelCounters> kernel_counters(const NcuRawPage& page) {
  auto value = [&](const std::vector<std::string>& row, std::string_view name) {
    const int c = page.column(name);
    return c < 0 ? NAN : to_base_unit(parse_ncu_number(row[c]), page.units[c]);
  };
  auto text = [&](const std::vector<std::string>& row, std::string_view name) {
    const int c = page.column(name);
    return c < 0 ? std::string() : row[c];
  };
  std::vector<KernelCounters> out;
  for (const auto& row : page.kernels) {
    KernelCounters k;
    k.kernel = text(row, "Kernel Name");
    k.grid = text(row, "Grid Size");
    k.block = text(row, "Block Size");
    k.duration_ns = value(row, kDuration);
    k.registers_per_thread = value(row, kRegisters);
    k.static_shared_bytes = value(row, kStaticShared);
    k.dynamic_shared_bytes = value(row, kDynamicShared);
    k.achieved_occupancy_pct = value(row, kAchievedOccupancy);
    for (const char* limit : kOccupancyLimits) {
      const double v = value(row, limit);
      if (!std::isnan(v)) k.theoretical_blocks_per_sm = std::isnan(k.theoretical_blocks_per_sm)
                                                            ? v
                                                            : std::min(k.theoretical_blocks_per_sm, v);
    }
    k.l1_sectors = value(row, kL1Load) + value(row, kL1Store);
    k.l2_sectors = value(row, kL2Read) + value(row, kL2Write);
    k.dram_bytes = value(row, kDramRead) + value(row, kDramWrite);
    k.instructions_issued = value(row, kIssued);
    for (std::size_t c = 0; c < page.columns.size(); ++c) {
      const std::string_view name = page.columns[c];
      if (name.size() <= kNcuStallPrefix.size() + kNcuStallSuffix.size() || !name.starts_with(kNcuStallPrefix) ||
          !name.ends_with(kNcuStallSuffix))
        continue;
      std::string reason(name.substr(kNcuStallPrefix.size(),
                                     name.size() - kNcuStallPrefix.size() - kNcuStallSuffix.size()));
      // "selected" is the issuing warp itself, not a stall.
      if (reason == "selected" || reason.ends_with("_not_issued")) continue;
      k.stall_per_issue[reason] = parse_ncu_number(row[c]);
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<KernelCounters> kernel_counters(const std::vector<fhe::ntt::LaunchDescription>& launches) {
  std::vector<KernelCounters> out;
  for (const auto& launch : launches) {
    KernelCounters k;
    k.kernel = launch.kernel;
    const bool gpu = launch.block[0] != 0;
    if (gpu) {
      k.grid = shape(launch.grid);
      k.block = shape(launch.block);
      k.registers_per_thread = launch.registers_per_thread;
      k.static_shared_bytes = static_cast<double>(launch.static_shared_bytes);
      k.dynamic_shared_bytes = static_cast<double>(launch.dynamic_shared_bytes);
      k.theoretical_blocks_per_sm = launch.max_blocks_per_sm;
    }
    // Split evenly so that the launches add up to the pass's model.
    k.dram_bytes = static_cast<double>(launch.modelled_dram_bytes) / launch.launch_count;
    for (int i = 0; i < launch.launch_count; ++i) out.push_back(k);
  }
  return out;
}

DirectionProfile aggregate_profile(const std::string& backend, const std::string& direction,
                                   const std::vector<KernelCounters>& kernels, int transforms, bool measured,
                                   const std::string& source, double peak_gb_per_s) {
  if (transforms < 1) throw fhe::InvalidArgument("a profile covers at least one transform");
  if (kernels.empty()) throw fhe::InvalidArgument("no kernel launches to profile for " + backend + " " + direction);
  DirectionProfile p;
  p.backend = backend;
  p.direction = direction;
  p.measured = measured;
  p.source = source;
  p.transforms = transforms;
  p.kernels = kernels;
  p.launches = static_cast<double>(kernels.size()) / transforms;
  p.duration_us = sum_of(kernels, &KernelCounters::duration_ns) / 1e3 / transforms;
  for (const auto& k : kernels) {
    add_distinct(p.registers_per_thread, k.registers_per_thread);
    add_distinct(p.shared_bytes_per_block, k.static_shared_bytes + k.dynamic_shared_bytes);
    add_distinct(p.theoretical_blocks_per_sm, k.theoretical_blocks_per_sm);
  }
  p.achieved_occupancy_pct = weighted_mean(kernels, &KernelCounters::achieved_occupancy_pct,
                                           &KernelCounters::duration_ns);
  p.l1_sectors = sum_of(kernels, &KernelCounters::l1_sectors) / transforms;
  p.l2_sectors = sum_of(kernels, &KernelCounters::l2_sectors) / transforms;
  p.dram_bytes = sum_of(kernels, &KernelCounters::dram_bytes) / transforms;
  p.dram_gb_per_s = p.dram_bytes / (p.duration_us * 1e3);  // bytes per ns = GB/s
  p.dram_pct_of_peak = 100.0 * p.dram_gb_per_s / peak_gb_per_s;
  p.top_stalls = top_stalls(kernels);
  return p;
}

nlohmann::json to_json(const KernelCounters& k) {
  nlohmann::json stalls = nlohmann::json::object();
  for (const auto& [reason, value] : k.stall_per_issue) stalls[reason] = number(value);
  return {{"kernel", k.kernel},
          {"grid", k.grid},
          {"block", k.block},
          {"duration_ns", number(k.duration_ns)},
          {"registers_per_thread", number(k.registers_per_thread)},
          {"static_shared_bytes", number(k.static_shared_bytes)},
          {"dynamic_shared_bytes", number(k.dynamic_shared_bytes)},
          {"achieved_occupancy_pct", number(k.achieved_occupancy_pct)},
          {"theoretical_blocks_per_sm", number(k.theoretical_blocks_per_sm)},
          {"l1_sectors", number(k.l1_sectors)},
          {"l2_sectors", number(k.l2_sectors)},
          {"dram_bytes", number(k.dram_bytes)},
          {"instructions_issued", number(k.instructions_issued)},
          {"stall_per_issue", stalls}};
}

nlohmann::json to_json(const DirectionProfile& p) {
  nlohmann::json stalls = nlohmann::json::array();
  for (const auto& s : p.top_stalls)
    stalls.push_back({{"reason", s.reason}, {"per_issue", s.per_issue}, {"share_pct", number(s.share_pct)}});
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels) kernels.push_back(to_json(k));
  return {{"backend", p.backend},
          {"direction", p.direction},
          {"measured", p.measured},
          {"source", p.source},
          {"transforms", p.transforms},
          {"launches", p.launches},
          {"duration_us", number(p.duration_us)},
          {"registers_per_thread", p.registers_per_thread},
          {"shared_bytes_per_block", p.shared_bytes_per_block},
          {"achieved_occupancy_pct", number(p.achieved_occupancy_pct)},
          {"theoretical_blocks_per_sm", p.theoretical_blocks_per_sm},
          {"l1_sectors", number(p.l1_sectors)},
          {"l2_sectors", number(p.l2_sectors)},
          {"dram_bytes", number(p.dram_bytes)},
          {"dram_gb_per_s", number(p.dram_gb_per_s)},
          {"dram_pct_of_peak", number(p.dram_pct_of_peak)},
          {"top_stalls", stalls},
          {"kernels", kernels}};
}

DirectionProfile direction_profile_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw fhe::InvalidArgument("a profile entry is not a JSON object");
  DirectionProfile p;
  try {
    p.backend = json.at("backend").get<std::string>();
    p.direction = json.at("direction").get<std::string>();
    p.measured = json.at("measured").get<bool>();
    p.source = json.at("source").get<std::string>();
    p.transforms = json.at("transforms").get<int>();
    p.launches = json.at("launches").get<double>();
    for (const auto& s : json.at("top_stalls"))
      p.top_stalls.push_back({s.at("reason").get<std::string>(), s.at("per_issue").get<double>(),
                              number_at(s, "share_pct")});
  } catch (const nlohmann::json::exception& e) {
    throw fhe::InvalidArgument(std::string("profile entry: ") + e.what());
  }
  p.duration_us = number_at(json, "duration_us");
  p.registers_per_thread = numbers_at(json, "registers_per_thread");
  p.shared_bytes_per_block = numbers_at(json, "shared_bytes_per_block");
  p.achieved_occupancy_pct = number_at(json, "achieved_occupancy_pct");
  p.theoretical_blocks_per_sm = numbers_at(json, "theoretical_blocks_per_sm");
  p.l1_sectors = number_at(json, "l1_sectors");
  p.l2_sectors = number_at(json, "l2_sectors");
  p.dram_bytes = number_at(json, "dram_bytes");
  p.dram_gb_per_s = number_at(json, "dram_gb_per_s");
  p.dram_pct_of_peak = number_at(json, "dram_pct_of_peak");
  return p;  // per-kernel detail stays in the file; the table needs the totals only
}

std::vector<std::string> profile_table_header() {
  return {"backend", "direction", "source", "launches", "duration us", "regs/thread", "smem static+dynamic B",
          "achieved occupancy %", "theoretical blocks/SM", "L1 sectors", "L2 sectors", "DRAM MB",
          "DRAM GB/s (% of peak)", "top warp stalls (per issued instruction, share)"};
}

std::vector<std::string> profile_table_row(const DirectionProfile& p) {
  std::string stalls;
  for (const auto& s : p.top_stalls)
    stalls += (stalls.empty() ? "" : ", ") + s.reason + " " + format_number(s.per_issue, 2) + " (" +
              cell(s.share_pct, 0) + "%)";
  std::string bandwidth = cell(p.dram_gb_per_s, 0);
  if (!std::isnan(p.dram_pct_of_peak)) bandwidth += " (" + format_number(p.dram_pct_of_peak, 1) + "%)";
  const double launches_rounded = std::round(p.launches);
  return {p.backend,
          p.direction,
          p.measured ? "ncu" : "describe (ncu unavailable)",
          format_number(p.launches, launches_rounded == p.launches ? 0 : 2),
          cell(p.duration_us, 2),
          distinct_cell(p.registers_per_thread),
          distinct_cell(p.shared_bytes_per_block),
          cell(p.achieved_occupancy_pct, 1),
          distinct_cell(p.theoretical_blocks_per_sm),
          cell(p.l1_sectors, 0),
          cell(p.l2_sectors, 0),
          cell(p.dram_bytes / 1e6, 2) + (p.measured ? "" : " (modelled)"),
          bandwidth,
          stalls.empty() ? "n/a" : stalls};
}

}  // namespace fhelium
