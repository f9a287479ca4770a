// Row loop and table ownership shared by the CPU plans.
#include "fhe/ntt/cpu/cpu_plan.h"

#include <string>

#include "fhe/core/error.h"

namespace fhe::ntt {

CpuPlan::CpuPlan(const BackendInfo& backend, NttSchedule schedule,
                 std::span<const std::uint64_t> moduli, WordType word)
    : backend_(backend),
      schedule_(std::move(schedule)),
      moduli_(moduli.begin(), moduli.end()),
      word_(word) {
  if (word_ == WordType::int64) {
    twiddles64_ = make_twiddles<std::uint64_t>(moduli_, schedule_.log_n);
  } else {
    twiddles32_ = make_twiddles<std::uint32_t>(moduli_, schedule_.log_n);
  }
}

void CpuPlan::check_rows(RowRange rows) const {
  if (rows.first + rows.count > moduli_.size()) {
    throw InvalidArgument(std::string(backend_.name) + ": rows [" + std::to_string(rows.first) +
                          ", " + std::to_string(rows.first + rows.count) +
                          ") exceed the plan's " + std::to_string(moduli_.size()) + " rows");
  }
}

void CpuPlan::forward(std::uint64_t* data, RowRange rows, StreamHandle) const {
  check_rows(rows);
  for (std::size_t i = 0; i < rows.count; ++i) {
    const std::size_t r = rows.first + i;
    std::uint64_t* row = data + i * n();
    if (word_ == WordType::int64) {
      forward_row(row, r, twiddles64_[r]);
    } else {
      forward_row(row, r, twiddles32_[r]);
    }
  }
}

void CpuPlan::inverse(std::uint64_t* data, RowRange rows, StreamHandle) const {
  check_rows(rows);
  for (std::size_t i = 0; i < rows.count; ++i) {
    const std::size_t r = rows.first + i;
    std::uint64_t* row = data + i * n();
    if (word_ == WordType::int64) {
      inverse_row(row, r, twiddles64_[r]);
    } else {
      inverse_row(row, r, twiddles32_[r]);
    }
  }
}

std::vector<LaunchDescription> describe_schedule_passes(const NttSchedule& schedule,
                                                        RowRange rows, WordType word,
                                                        bool forward, std::size_t fp64_rows) {
  const std::size_t n = std::size_t{1} << schedule.log_n;
  const std::size_t pair_bytes = word == WordType::int64 ? 16 : 8;  // twiddle + Shoup companion
  std::vector<LaunchDescription> launches;
  const auto& passes = schedule.passes;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const NttPass& pass = passes[forward ? i : passes.size() - 1 - i];
    LaunchDescription launch;
    launch.kernel = pass.kind == PassKind::global_stage    ? "cpu_radix2_stage"
                    : pass.kind == PassKind::shared_region ? "cpu_fused_region"
                                                           : "cpu_fused_pass";
    launch.pass_kind = pass.kind;
    launch.first_stage = pass.first_stage;
    launch.stage_count = pass.stage_count;
    // Stage s reads 2^s distinct twiddles per row, whatever the layout.
    std::size_t twiddles_per_row = 0;
    for (int s = pass.first_stage; s < pass.first_stage + pass.stage_count; ++s) {
      twiddles_per_row += std::size_t{1} << s;
    }
    launch.modelled_dram_bytes = rows.count * (2 * n * sizeof(std::uint64_t) + twiddles_per_row * pair_bytes) -
                                 fp64_rows * twiddles_per_row * (pair_bytes - sizeof(double));
    launches.push_back(std::move(launch));
  }
  return launches;
}

std::vector<LaunchDescription> CpuPlan::describe(RowRange rows, bool forward) const {
  check_rows(rows);
  return describe_schedule_passes(schedule_, rows, word_, forward);
}

}  // namespace fhe::ntt
