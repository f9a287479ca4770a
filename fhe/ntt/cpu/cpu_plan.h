// Common state of the CPU plans: moduli, schedule and twiddle tables, and the
// loop over rows. A backend supplies the per-row transform for both word
// types (data is stored in 64-bit words; int32 presets use 32-bit arithmetic).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "fhe/ntt/backend.h"
#include "fhe/ntt/twiddles.h"

namespace fhe::ntt {

class CpuPlan : public NttPlan {
 public:
  CpuPlan(const BackendInfo& backend, NttSchedule schedule, std::span<const std::uint64_t> moduli,
          WordType word);

  const BackendInfo& backend() const final { return backend_; }
  DeviceSpec device() const final { return {DeviceKind::cpu, 0}; }
  int log_n() const final { return schedule_.log_n; }
  std::size_t row_count() const final { return moduli_.size(); }
  const std::vector<std::uint64_t>& moduli() const final { return moduli_; }
  const NttSchedule& schedule() const final { return schedule_; }

  void forward(std::uint64_t* data, RowRange rows, StreamHandle stream = {}) const final;
  void inverse(std::uint64_t* data, RowRange rows, StreamHandle stream = {}) const final;
  std::vector<LaunchDescription> describe(RowRange rows, bool forward) const final;

 protected:
  WordType word() const { return word_; }
  const std::vector<PrimeTwiddles<std::uint64_t>>& twiddles64() const { return twiddles64_; }
  const std::vector<PrimeTwiddles<std::uint32_t>>& twiddles32() const { return twiddles32_; }

  // One row of N words; `row_index` is the plan row (for per-row tables).
  virtual void forward_row(std::uint64_t* row, std::size_t row_index,
                           const PrimeTwiddles<std::uint64_t>& t) const = 0;
  virtual void forward_row(std::uint64_t* row, std::size_t row_index,
                           const PrimeTwiddles<std::uint32_t>& t) const = 0;
  virtual void inverse_row(std::uint64_t* row, std::size_t row_index,
                           const PrimeTwiddles<std::uint64_t>& t) const = 0;
  virtual void inverse_row(std::uint64_t* row, std::size_t row_index,
                           const PrimeTwiddles<std::uint32_t>& t) const = 0;

 private:
  void check_rows(RowRange rows) const;

  const BackendInfo& backend_;
  NttSchedule schedule_;
  std::vector<std::uint64_t> moduli_;
  WordType word_;
  std::vector<PrimeTwiddles<std::uint64_t>> twiddles64_;
  std::vector<PrimeTwiddles<std::uint32_t>> twiddles32_;
};

// The passes of `schedule` over `rows` in execution order (reversed for the
// inverse) with the byte model filled in and no device fields; CUDA plans
// start from this and add their launch shapes and resources. Of the rows,
// `fp64_rows` keep their twiddles as 8-byte doubles (the CUDA plans'
// double-precision rows, fhe/ntt/cuda/fp64_arith.cuh) instead of pairs.
std::vector<LaunchDescription> describe_schedule_passes(const NttSchedule& schedule,
                                                        RowRange rows, WordType word,
                                                        bool forward, std::size_t fp64_rows = 0);

// Factories used by the registry, one per backend family.
std::unique_ptr<NttPlan> make_cpu_indexed_plan(const BackendInfo& backend, NttSchedule schedule,
                                               std::span<const std::uint64_t> moduli,
                                               WordType word);
std::unique_ptr<NttPlan> make_cpu_grouped_plan(const BackendInfo& backend, NttSchedule schedule,
                                               std::span<const std::uint64_t> moduli,
                                               WordType word);
std::unique_ptr<NttPlan> make_cpu_strict_radix_plan(const BackendInfo& backend,
                                                    NttSchedule schedule,
                                                    std::span<const std::uint64_t> moduli,
                                                    WordType word);

}  // namespace fhe::ntt
