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

}  // namespace fhe::ntt
