// The CUDA NTT plan of every backend: tables uploaded once at construction,
// then forward()/inverse() only enqueue the schedule's kernels on the
// caller's stream (no allocation, no synchronisation, no host decision on
// data), so the evaluator can capture them into CUDA graphs.
#include <string>

#include "fhe/core/device_info.h"
#include "fhe/cuda/check.h"
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/cpu/cpu_plan.h"
#include "fhe/ntt/cuda/cuda_plans.h"
#include "fhe/ntt/cuda/device_tables.h"
#include "fhe/ntt/cuda/kernels.h"
#include "fhe/ntt/cuda/launch_plan.h"

namespace fhe::ntt {
namespace {

using fhe::cuda::DeviceBuffer;

template <typename Word>
struct DeviceTables {
  std::uint32_t stride = 0;
  DeviceBuffer<gpu::TwiddlePair<Word>> forward, inverse;
  DeviceBuffer<gpu::RowConstants<Word>> constants;

  static DeviceTables upload(const gpu::HostTables<Word>& host, const std::string& context) {
    DeviceTables tables;
    tables.stride = host.stride;
    tables.forward = DeviceBuffer<gpu::TwiddlePair<Word>>::from_host(host.forward, context);
    tables.inverse = DeviceBuffer<gpu::TwiddlePair<Word>>::from_host(host.inverse, context);
    tables.constants = DeviceBuffer<gpu::RowConstants<Word>>::from_host(host.constants, context);
    return tables;
  }
};

class CudaPlan final : public NttPlan {
 public:
  CudaPlan(const BackendInfo& backend, NttSchedule schedule, int device_index,
           std::span<const std::uint64_t> moduli, WordType word)
      : backend_(backend),
        schedule_(std::move(schedule)),
        device_index_(device_index),
        moduli_(moduli.begin(), moduli.end()),
        word_(word) {
    const std::string where = context({0, moduli_.size()});
    try {
      require_device(device());
    } catch (const DeviceError& error) {
      throw DeviceError(std::string(backend_.name) + ": " + error.what());
    }
    try {
      forward_launches_ = gpu::make_pass_launches(backend_, schedule_, true);
      inverse_launches_ = gpu::make_pass_launches(backend_, schedule_, false);
      fhe::cuda::DeviceGuard guard(device_index_);
      FHE_CUDA_CHECK(
          cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_index_), where);
      FHE_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes_, cudaDevAttrL2CacheSize, device_index_), where);
      if (word_ == WordType::int64) {
        tables64_ = DeviceTables<std::uint64_t>::upload(
            gpu::make_host_tables<std::uint64_t>(backend_, log_n(), moduli_), where);
      } else {
        tables32_ = DeviceTables<std::uint32_t>::upload(
            gpu::make_host_tables<std::uint32_t>(backend_, log_n(), moduli_), where);
      }
      if (backend_.family == BackendFamily::indexed) {
        const std::vector<gpu::IndexEntry> entries = gpu::make_index_table(log_n());
        index_entries_ = DeviceBuffer<gpu::IndexEntry>::from_host(entries, where);
      }
    } catch (const InvalidArgument& error) {
      throw InvalidArgument(where + ": " + error.what());
    }
  }

  const BackendInfo& backend() const override { return backend_; }
  DeviceSpec device() const override { return {DeviceKind::cuda, device_index_}; }
  int log_n() const override { return schedule_.log_n; }
  std::size_t row_count() const override { return moduli_.size(); }
  const std::vector<std::uint64_t>& moduli() const override { return moduli_; }
  const NttSchedule& schedule() const override { return schedule_; }

  void forward(std::uint64_t* data, RowRange rows, StreamHandle stream) const override {
    enqueue(data, rows, 1, static_cast<cudaStream_t>(stream.native), true, nullptr);
  }
  void inverse(std::uint64_t* data, RowRange rows, StreamHandle stream) const override {
    enqueue(data, rows, 1, static_cast<cudaStream_t>(stream.native), false, nullptr);
  }

  std::vector<LaunchDescription> describe(RowRange rows, bool forward) const override {
    check_rows(rows);
    std::size_t fp64_rows = 0;
    if (word_ == WordType::int64) {
      for (std::size_t r = rows.first; r < rows.first + rows.count; ++r) {
        fp64_rows += gpu::fp64_row(backend_, moduli_[r]) ? 1 : 0;
      }
    }
    const std::vector<LaunchDescription> passes =
        describe_schedule_passes(schedule_, rows, word_, forward, fp64_rows);
    const auto& launches = forward ? forward_launches_ : inverse_launches_;
    const std::size_t word_bytes = word_ == WordType::int64 ? 8 : 4;
    fhe::cuda::DeviceGuard guard(device_index_);
    std::vector<LaunchDescription> out;
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const gpu::PassLaunch& launch = launches[i];
      LaunchDescription d = passes[i];
      gpu::LaunchShape shape = gpu::launch_shape(launch, log_n(), rows.count, sm_count_, word_bytes);
      gpu::KernelResources resources;
      const gpu::LaunchGroup group =
          gpu::launch_group(launches, i, launches.size(), forward, log_n(), rows.count, sm_count_, word_bytes, false)
              .kind;
      if (group == gpu::LaunchGroup::pass_with_region) {
        const gpu::PassLaunch& pass = launches[forward ? i : i + 1];
        const bool consecutive = launches[forward ? i + 1 : i].address.consecutive;
        shape = gpu::pass_region_shape(pass.stage_count, log_n(), rows.count, word_bytes);
        resources = word_ == WordType::int64
                        ? gpu::pass_region_resources<std::uint64_t>(pass.stage_count, consecutive, forward, shape)
                        : gpu::pass_region_resources<std::uint32_t>(pass.stage_count, consecutive, forward, shape);
        d.pass_kind = PassKind::shared_region;
      } else if (group == gpu::LaunchGroup::pass_pair) {
        shape = gpu::pass_pair_shape(log_n(), rows.count, word_bytes);
        const auto lower_first = static_cast<std::uint32_t>(launches[forward ? i : i + 1].first_stage);
        const auto stages = static_cast<int>(launch.stage_count);
        const auto log = static_cast<std::uint32_t>(log_n());
        resources = word_ == WordType::int64
                        ? gpu::pass_pair_resources<std::uint64_t>(stages, forward, log, lower_first, shape)
                        : gpu::pass_pair_resources<std::uint32_t>(stages, forward, log, lower_first, shape);
      } else {
        resources = word_ == WordType::int64 ? kernel_resources<std::uint64_t>(launch, forward, shape)
                                             : kernel_resources<std::uint32_t>(launch, forward, shape);
      }
      if (group != gpu::LaunchGroup::alone) {
        // One launch for two: both passes' stages and twiddles, the data once in and out.
        const LaunchDescription& other = passes[++i];
        d.first_stage = std::min(d.first_stage, other.first_stage);
        d.stage_count += other.stage_count;
        d.modelled_dram_bytes += other.modelled_dram_bytes - rows.count * 2 * n() * sizeof(std::uint64_t);
      }
      d.kernel = resources.name;
      d.grid[0] = shape.grid_x;
      d.grid[1] = shape.grid_y;
      d.grid[2] = 1;
      d.block[0] = shape.block;
      d.block[1] = d.block[2] = 1;
      d.registers_per_thread = resources.registers_per_thread;
      d.static_shared_bytes = resources.static_shared_bytes;
      d.dynamic_shared_bytes = shape.dynamic_shared_bytes;
      d.max_blocks_per_sm = resources.max_blocks_per_sm;
      if (launch.kernel == gpu::KernelKind::indexed_stage) {
        d.modelled_dram_bytes += (n() / 2) * sizeof(gpu::IndexEntry);  // shared by all rows
      }
      out.push_back(std::move(d));
    }
    return out;
  }

 private:
  std::string context(RowRange rows) const {
    return "backend " + std::string(backend_.name) + " on cuda:" + std::to_string(device_index_) +
           ", logN " + std::to_string(schedule_.log_n) + ", rows [" + std::to_string(rows.first) +
           ", " + std::to_string(rows.first + rows.count) + ")";
  }

  void check_rows(RowRange rows) const {
    if (rows.first + rows.count > moduli_.size()) {
      throw InvalidArgument(context(rows) + ": the plan has only " +
                            std::to_string(moduli_.size()) + " rows");
    }
  }

  void transform_batch(std::uint64_t* data, RowRange rows, std::size_t batch, StreamHandle stream,
                       bool forward) const override {
    enqueue(data, rows, batch, static_cast<cudaStream_t>(stream.native), forward, nullptr);
  }

 public:
  // forward_batch_skipping (cuda_plans.h) and every batch.
  void enqueue(std::uint64_t* data, RowRange rows, std::size_t batch, cudaStream_t stream, bool forward,
               const std::uint32_t* skip_starts, const gpu::CentredLift* lift = nullptr) const {
    check_rows(rows);
    if (rows.count == 0 || batch == 0) return;
    if (lift && (!forward || forward_launches_.front().kernel != gpu::KernelKind::global_pass)) {
      throw InvalidArgument(context(rows) + ": only a forward that starts with a global pass lifts its input");
    }
    fhe::cuda::DeviceGuard guard(device_index_);
    const std::size_t launches = (forward ? forward_launches_ : inverse_launches_).size();
    if (word_ == WordType::int64) {
      enqueue_passes(tables64_, data, rows, batch, stream, forward, launches, skip_starts, {}, lift);
    } else {
      enqueue_passes(tables32_, data, rows, batch, stream, forward, launches, skip_starts, {}, lift);
    }
  }

  // forward_lift_keeps_launches (cuda_plans.h).
  bool lift_keeps_launches(RowRange rows, std::size_t batch, bool before_region) const {
    if (forward_launches_.empty()) return false;
    const bool ends_in_region = forward_launches_.back().kernel == gpu::KernelKind::shared_region;
    if (before_region && !ends_in_region) return false;
    const std::size_t count = forward_launches_.size() - (before_region ? 1 : 0);
    const std::size_t word_bytes = word_ == WordType::int64 ? 8 : 4;
    return gpu::lift_keeps_launches(forward_launches_, count, log_n(), rows.count * batch, sm_count_, word_bytes);
  }

  // inverse_batch_out_of_place (cuda_plans.h).
  bool inverse_out_of_place(const std::uint64_t* source, std::uint64_t* data, RowRange rows, std::size_t batch,
                            std::size_t source_batch_words, cudaStream_t stream) const {
    check_rows(rows);
    if (inverse_launches_.empty() || inverse_launches_.front().kernel != gpu::KernelKind::shared_region) {
      return false;
    }
    if (rows.count == 0 || batch == 0) return true;
    fhe::cuda::DeviceGuard guard(device_index_);
    if (word_ == WordType::int64) {
      enqueue_passes(tables64_, data, rows, batch, stream, false, inverse_launches_.size(), nullptr,
                     {source, source_batch_words});
    } else {
      enqueue_passes(tables32_, data, rows, batch, stream, false, inverse_launches_.size(), nullptr,
                     {source, source_batch_words});
    }
    return true;
  }

  // forward_batch_before_region (cuda_plans.h).
  std::optional<gpu::ForwardRegion> forward_before_region(std::uint64_t* data, RowRange rows, std::size_t batch,
                                                          cudaStream_t stream, const std::uint32_t* skip_starts,
                                                          const gpu::CentredLift* lift, bool leave_pass) const {
    check_rows(rows);
    // A lifted forward also starts with a global pass (so it is not the region alone).
    if (rows.count == 0 || batch == 0 || forward_launches_.empty() ||
        forward_launches_.back().kernel != gpu::KernelKind::shared_region ||
        (lift && forward_launches_.front().kernel != gpu::KernelKind::global_pass)) {
      return std::nullopt;
    }
    fhe::cuda::DeviceGuard guard(device_index_);
    const std::size_t word_bytes = word_ == WordType::int64 ? 8 : 4;
    const std::size_t region_index = forward_launches_.size() - 1;
    const bool pass_left =
        leave_pass && gpu::leaves_pass_to_region_kernel(forward_launches_, log_n(), rows.count * batch, sm_count_,
                                                        word_bytes, lift != nullptr,
                                                        static_cast<std::size_t>(l2_bytes_));
    const std::size_t earlier = pass_left ? region_index - 1 : region_index;
    gpu::ForwardRegion region;
    region.is_wide = word_ == WordType::int64;
    // The caller's kernel runs the region with 16-thread tiles (never split),
    // or the pass's 2^G-tile blocks.
    region.tiles_per_block =
        pass_left ? 1u << forward_launches_[earlier].stage_count
                  : gpu::launch_shape(forward_launches_.back(), log_n(), rows.count * batch, sm_count_, word_bytes,
                                      false)
                        .tiles_per_block;
    // The caller's launch is the next of the transform (its row order).
    if (region.is_wide) {
      const std::size_t order =
          enqueue_passes(tables64_, data, rows, batch, stream, true, earlier, skip_starts, {}, lift);
      if (pass_left) region.pass_wide = pass_args(tables64_, earlier, order, data, rows, batch, true, skip_starts);
      region.wide = pass_args(tables64_, region_index, order, data, rows, batch, true, skip_starts);
    } else {
      const std::size_t order =
          enqueue_passes(tables32_, data, rows, batch, stream, true, earlier, skip_starts, {}, lift);
      if (pass_left) region.pass_narrow = pass_args(tables32_, earlier, order, data, rows, batch, true, skip_starts);
      region.narrow = pass_args(tables32_, region_index, order, data, rows, batch, true, skip_starts);
    }
    return region;
  }

 private:
  // Where an out-of-place inverse's first pass reads (PassArgs::source).
  struct FirstSource {
    const std::uint64_t* words = nullptr;
    std::size_t batch_words = 0;
  };

  // The first `launch_count` passes of the direction's schedule; the
  // first reads `first_source` when it is given (an out-of-place inverse,
  // whose first pass is the shared region) or lifts `first_lift`'s rows (a
  // forward whose first pass is a global pass). The pass next to the
  // region runs in the region's launch, or two passes in one, where
  // gpu::launch_group says so. Returns the launches issued.
  template <typename Word>
  std::size_t enqueue_passes(const DeviceTables<Word>& tables, std::uint64_t* data, RowRange rows,
                      std::size_t batch, cudaStream_t stream, bool forward, std::size_t launch_count,
                      const std::uint32_t* skip_starts, FirstSource first_source = {},
                      const gpu::CentredLift* first_lift = nullptr) const {
    const auto& launches = forward ? forward_launches_ : inverse_launches_;
    const std::size_t data_rows = rows.count * batch;
    // `order` counts the launches issued, which alternate their row order.
    std::size_t order = 0;
    for (std::size_t i = 0; i < launch_count; ++i, ++order) {
      const gpu::PassLaunch& launch = launches[i];
      cudaError_t status = cudaSuccess;
      if (launch.kernel == gpu::KernelKind::indexed_stage) {
        const gpu::LaunchShape shape = gpu::launch_shape(launch, log_n(), data_rows, sm_count_, sizeof(Word), true,
                                                         skip_starts != nullptr);
        const gpu::IndexedStageArgs<Word> args = gpu::make_indexed_stage_args(
            launch, data, forward ? tables.forward.data() : tables.inverse.data(), tables.constants.data(),
            tables.stride, index_entries_.data(), rows, log_n(), skip_starts);
        status = gpu::launch_indexed_stage(args, forward, shape, stream);
      } else {
        gpu::PassArgs<Word> args = pass_args(tables, i, order, data, rows, batch, forward, skip_starts);
        if (i == 0) {
          args.source = first_source.words;
          args.source_batch_words = first_source.batch_words;
          if (first_lift) args.lift = *first_lift;
        }
        const gpu::LaunchGrouping grouping = gpu::launch_group(launches, i, launch_count, forward, log_n(), data_rows,
                                                               sm_count_, sizeof(Word), first_lift != nullptr);
        const gpu::LaunchGroup group = grouping.kind;
        if (group == gpu::LaunchGroup::pass_with_region) {
          const gpu::PassArgs<Word> next = pass_args(tables, ++i, order, data, rows, batch, forward, skip_starts);
          const gpu::PassArgs<Word>& pass = forward ? args : next;
          const gpu::PassArgs<Word>& region = forward ? next : args;
          status = gpu::launch_pass_region(
              pass, region, forward, gpu::pass_region_shape(static_cast<int>(pass.stage_count), log_n(), data_rows,
                                                            sizeof(Word)),
              stream);
        } else if (group == gpu::LaunchGroup::pass_pair) {
          const gpu::PassArgs<Word> second = pass_args(tables, ++i, order, data, rows, batch, forward, skip_starts);
          status = gpu::launch_pass_pair(args, second, forward, gpu::pass_pair_shape(log_n(), data_rows, sizeof(Word)),
                                         stream);
        } else if (group == gpu::LaunchGroup::pass_group) {
          const gpu::PassGroupArgs<Word> passes = gpu::pass_group_args(grouping.group_shape, args, [&] {
            return pass_args(tables, ++i, order, data, rows, batch, forward, skip_starts);
          });
          status = gpu::launch_pass_group(passes, grouping.group_shape,
                                          gpu::pass_pair_shape(log_n(), data_rows, sizeof(Word)), stream);
        } else {
          const gpu::LaunchShape shape =
              gpu::launch_shape(launch, log_n(), data_rows, sm_count_, sizeof(Word), true, skip_starts != nullptr);
          status = launch.kernel == gpu::KernelKind::global_pass
                       ? gpu::launch_global_pass(args, forward, shape, stream)
                       : gpu::launch_shared_region(args, forward, shape, stream);
        }
      }
      if (status == cudaSuccess) status = cudaGetLastError();
      if (status != cudaSuccess) {
        fhe::cuda::throw_cuda_error(status, "NTT kernel launch", __FILE__, __LINE__,
                                    context(rows) + ", pass at stage " +
                                        std::to_string(launch.first_stage));
      }
    }
    return order;
  }

  // The arguments of launch `index` of the direction's schedule, issued as
  // launch `order` of the transform (gpu::rows_ascending over the launch's
  // 64-bit slots, for either word type).
  template <typename Word>
  gpu::PassArgs<Word> pass_args(const DeviceTables<Word>& tables, std::size_t index, std::size_t order,
                                std::uint64_t* data, RowRange rows, std::size_t batch, bool forward,
                                const std::uint32_t* skip_starts) const {
    const gpu::PassLaunch& launch = (forward ? forward_launches_ : inverse_launches_)[index];
    gpu::PassArgs<Word> args =
        gpu::make_pass_args(launch, data, forward ? tables.forward.data() : tables.inverse.data(),
                            tables.constants.data(), tables.stride, rows, batch, log_n(), skip_starts);
    args.rows_ascending = gpu::rows_ascending(order, ((rows.count * batch) << log_n()) * sizeof(std::uint64_t),
                                              static_cast<std::size_t>(l2_bytes_));
    return args;
  }

  template <typename Word>
  static gpu::KernelResources kernel_resources(const gpu::PassLaunch& launch, bool forward,
                                               const gpu::LaunchShape& shape) {
    switch (launch.kernel) {
      case gpu::KernelKind::indexed_stage:
        return gpu::indexed_stage_resources<Word>(forward, shape);
      case gpu::KernelKind::global_pass:
        return gpu::global_pass_resources<Word>(launch.stage_count, forward, shape);
      case gpu::KernelKind::shared_region:
        return gpu::shared_region_resources<Word>(launch.stage_count, launch.address.consecutive, forward, shape);
    }
    throw InvalidArgument("unknown kernel kind");
  }

  const BackendInfo& backend_;
  NttSchedule schedule_;
  int device_index_;
  std::vector<std::uint64_t> moduli_;
  WordType word_;
  int sm_count_ = 1;
  int l2_bytes_ = 0;
  std::vector<gpu::PassLaunch> forward_launches_, inverse_launches_;
  DeviceTables<std::uint64_t> tables64_;
  DeviceTables<std::uint32_t> tables32_;
  DeviceBuffer<gpu::IndexEntry> index_entries_;
};

}  // namespace

std::optional<gpu::ForwardRegion> forward_batch_before_region(const NttPlan& plan, std::uint64_t* data,
                                                              RowRange rows, std::size_t batch,
                                                              StreamHandle stream,
                                                              const std::uint32_t* skip_starts,
                                                              const gpu::CentredLift* lift, bool leave_pass) {
  const auto* cuda_plan = dynamic_cast<const CudaPlan*>(&plan);
  if (!cuda_plan) return std::nullopt;
  return cuda_plan->forward_before_region(data, rows, batch, static_cast<cudaStream_t>(stream.native),
                                          skip_starts, lift, leave_pass);
}

bool inverse_batch_out_of_place(const NttPlan& plan, const std::uint64_t* source, std::uint64_t* data,
                                RowRange rows, std::size_t batch, StreamHandle stream,
                                std::size_t source_batch_words) {
  const auto* cuda_plan = dynamic_cast<const CudaPlan*>(&plan);
  if (!cuda_plan) return false;
  return cuda_plan->inverse_out_of_place(source, data, rows, batch, source_batch_words,
                                         static_cast<cudaStream_t>(stream.native));
}

void forward_batch_skipping(const NttPlan& plan, std::uint64_t* data, RowRange rows, std::size_t batch,
                            const std::uint32_t* skip_starts, StreamHandle stream, const gpu::CentredLift* lift) {
  const auto* cuda_plan = dynamic_cast<const CudaPlan*>(&plan);
  if (!cuda_plan) {
    if (lift) throw InvalidArgument("a lifted forward needs a CUDA plan");
    return plan.forward_batch(data, rows, batch, stream);
  }
  cuda_plan->enqueue(data, rows, batch, static_cast<cudaStream_t>(stream.native), true, skip_starts, lift);
}

bool forward_lift_keeps_launches(const NttPlan& plan, RowRange rows, std::size_t batch, bool before_region) {
  const auto* cuda_plan = dynamic_cast<const CudaPlan*>(&plan);
  return cuda_plan && cuda_plan->lift_keeps_launches(rows, batch, before_region);
}

std::unique_ptr<NttPlan> make_cuda_plan(const BackendInfo& backend, NttSchedule schedule,
                                        int device_index, std::span<const std::uint64_t> moduli,
                                        WordType word) {
  return std::make_unique<CudaPlan>(backend, std::move(schedule), device_index, moduli, word);
}

}  // namespace fhe::ntt
