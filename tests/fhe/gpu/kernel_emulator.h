// Runs the CUDA NTT kernels' thread bodies on the host, block by block and
// thread by thread with the same launch plan, shapes, tables and barriers
// (phases) as the device, so CI without a GPU checks their indexing, twiddle
// addressing and arithmetic word for word.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fhe/ntt/cuda/device_tables.h"
#include "fhe/ntt/cuda/global_pass.cuh"
#include "fhe/ntt/cuda/indexed_stage.cuh"
#include "fhe/ntt/cuda/launch_plan.h"
#include "fhe/ntt/cuda/pass_pair.cuh"
#include "fhe/ntt/cuda/pass_region.cuh"
#include "fhe/ntt/cuda/shared_region.cuh"
#include "fhe/ntt/cuda/split_region.cuh"
#include "fhe/ntt/registry.h"

namespace fhe::testing {

template <typename Word>
class KernelEmulator {
 public:
  // allow_split false: the launch shapes never take the split kernels
  // (LaunchShape::split), so small launches run the others.
  KernelEmulator(const ntt::BackendInfo& backend, int log_n, std::span<const std::uint64_t> moduli,
                 int sm_count, bool allow_split = true)
      : backend_(backend),
        log_n_(log_n),
        sm_count_(sm_count),
        allow_split_(allow_split),
        schedule_(ntt::make_schedule(backend, log_n)),
        tables_(ntt::gpu::make_host_tables<Word>(backend, log_n, moduli)),
        index_(ntt::gpu::make_index_table(log_n)) {}

  // Transforms `batch` blocks of rows.count rows of `data` (each block plan
  // rows rows.first...) in place, as NttPlan::forward_batch does; only the
  // first `launch_count` passes when it is given, leaving the rows of
  // skip_starts (host memory here) where the kernels do. With
  // first_source, the first pass reads it instead of `data` (the CUDA
  // plan's out-of-place inverse; its batch blocks first_source_batch_words
  // apart, 0: data's layout); with first_lift, it lifts that lift's rows
  // (PassArgs::lift).
  void run(std::vector<std::uint64_t>& data, ntt::RowRange rows, bool forward, std::size_t batch = 1,
           std::size_t launch_count = SIZE_MAX, const std::uint32_t* skip_starts = nullptr,
           const std::uint64_t* first_source = nullptr, const ntt::gpu::CentredLift* first_lift = nullptr,
           std::size_t first_source_batch_words = 0) {
    const std::size_t data_rows = rows.count * batch;
    const auto launches = ntt::gpu::make_pass_launches(backend_, schedule_, forward);
    for (std::size_t i = 0; i < launches.size() && i < launch_count; ++i) {
      const ntt::gpu::PassLaunch& launch = launches[i];
      const ntt::gpu::LaunchShape shape =
          ntt::gpu::launch_shape(launch, log_n_, data_rows, sm_count_, sizeof(Word), allow_split_,
                                 skip_starts != nullptr);
      const ntt::gpu::TwiddlePair<Word>* twiddles =
          forward ? tables_.forward.data() : tables_.inverse.data();
      if (launch.kernel == ntt::gpu::KernelKind::indexed_stage) {
        const ntt::gpu::IndexedStageArgs<Word> args = ntt::gpu::make_indexed_stage_args(
            launch, data.data(), twiddles, tables_.constants.data(), tables_.stride, index_.data(), rows, log_n_,
            skip_starts);
        for_each_thread(shape, [&](std::uint32_t row, std::uint32_t item) {
          if (item < n() / 2) {
            if (forward) {
              ntt::gpu::indexed_butterfly<Word, true>(args, row, item);
            } else {
              ntt::gpu::indexed_butterfly<Word, false>(args, row, item);
            }
          }
        });
        continue;
      }
      ntt::gpu::PassArgs<Word> args = pass_args(launch, data, rows, batch, forward, skip_starts);
      if (i == 0) {
        args.source = first_source;
        args.source_batch_words = first_source_batch_words;
        if (first_lift) args.lift = *first_lift;
      }
      const ntt::gpu::LaunchGrouping grouping = ntt::gpu::launch_group(launches, i, launch_count, forward, log_n_,
                                                                       data_rows, sm_count_, sizeof(Word),
                                                                       first_lift != nullptr);
      const ntt::gpu::LaunchGroup group = grouping.kind;
      if (group == ntt::gpu::LaunchGroup::pass_with_region) {
        const ntt::gpu::PassArgs<Word> next = pass_args(launches[++i], data, rows, batch, forward, skip_starts);
        run_pass_region(forward ? args : next, forward ? next : args, forward, data_rows);
        ++fused_launches_;
        continue;
      }
      if (group == ntt::gpu::LaunchGroup::pass_pair) {
        run_pass_pair(args, pass_args(launches[++i], data, rows, batch, forward, skip_starts), forward, data_rows);
        ++paired_launches_;
        continue;
      }
      if (group == ntt::gpu::LaunchGroup::pass_group) {
        const int shape = grouping.group_shape;
        const auto next = [&] { return pass_args(launches[++i], data, rows, batch, forward, skip_starts); };
        run_pass_group(ntt::gpu::pass_group_args(shape, args, next), shape, data_rows);
        ++grouped_launches_[shape];
        continue;
      }
      if (launch.kernel == ntt::gpu::KernelKind::global_pass) {
        run_global_pass(args, shape, forward);
      } else {
        run_shared_region(args, shape, forward);
      }
    }
  }

  // Pass-region launches run so far (launch_group), so tests can
  // tell that they covered them.
  std::size_t fused_launches() const { return fused_launches_; }
  // Pass-pair launches run so far (launch_group).
  std::size_t paired_launches() const { return paired_launches_; }
  // Pair and group launches of the constant-log-N kernels run so far.
  std::size_t constant_log_n_launches() const { return constant_log_n_launches_; }
  // Pass-group launches run so far (launch_group), by shape
  // (kPassGroupShapes).
  std::size_t grouped_launches(int shape) const { return grouped_launches_[shape]; }

  // A phase of a region kernel: (args, shared, block, tiles_per_block,
  // thread), like copy_tiles.
  using RegionPhase =
      std::function<void(const ntt::gpu::PassArgs<Word>&, Word*, std::uint32_t, std::uint32_t, std::uint32_t)>;

  // The forward region on forward_before_region's `args`, with the plan's
  // launch shape and `last` as its third phase instead of the tile store:
  // how a kernel that fuses work into the region runs (the ModDown and
  // rescale finish). With `pass` (forward_before_region's pass_left), that
  // pass first, on blocks of 2^G tiles, as the pass-region kernels run it.
  // keep_fp64: the rows phase leaves rows of the double-precision
  // butterflies unreduced, as doubles (tile_rows_at's KeepFp64).
  void forward_region_then(const ntt::gpu::PassArgs<Word>& args, const RegionPhase& last,
                           const std::optional<ntt::gpu::PassArgs<Word>>& pass = std::nullopt,
                           bool keep_fp64 = false) {
    if (pass) {
      const auto g = static_cast<int>(pass->stage_count);
      const auto shape = ntt::gpu::pass_region_shape(g, log_n_, args.row_count, sizeof(Word));
      return with_pass_stages(g, [&]<int G>() {
        ntt::gpu::with_region_variant(args.stage_count, args.address.consecutive, [&]<int Skip, bool Consecutive>() {
          if constexpr (Skip == 0) {
            region_blocks(args, shape, {pass_phase<G>(*pass, true),
                                        RegionPhase(&ntt::gpu::forward_columns<Word, 0, Consecutive, true>),
                                        forward_rows<0, Consecutive>(keep_fp64), last});
          }
        });
      });
    }
    const auto launches = ntt::gpu::make_pass_launches(backend_, schedule_, true);
    run_shared_region(
        args, ntt::gpu::launch_shape(launches.back(), log_n_, args.row_count, sm_count_, sizeof(Word), false), true,
        last, keep_fp64);
  }

  // As ntt::forward_batch_before_region: every forward pass but the last
  // on `data`, and the arguments of the last, the shared region (which the
  // schedule must end in). With `pass_left` (leave_pass), also the pass
  // before the region where a plan with no L2 would leave it
  // (leaves_pass_to_region_kernel): its arguments go there, and nullopt
  // otherwise. With `lift`, the first pass lifts its input (PassArgs::lift).
  ntt::gpu::PassArgs<Word> forward_before_region(std::vector<std::uint64_t>& data, ntt::RowRange rows,
                                                 std::size_t batch, const std::uint32_t* skip_starts = nullptr,
                                                 std::optional<ntt::gpu::PassArgs<Word>>* pass_left = nullptr,
                                                 const ntt::gpu::CentredLift* lift = nullptr) {
    const auto launches = ntt::gpu::make_pass_launches(backend_, schedule_, true);
    if (launches.back().kernel != ntt::gpu::KernelKind::shared_region) {
      throw std::logic_error("the schedule does not end in the shared region");
    }
    std::size_t earlier = launches.size() - 1;
    if (pass_left) {
      pass_left->reset();
      // No L2 here: every launch the plan would fuse leaves the pass.
      if (ntt::gpu::leaves_pass_to_region_kernel(launches, log_n_, rows.count * batch, sm_count_, sizeof(Word),
                                                 lift != nullptr, 0)) {
        --earlier;
        *pass_left = pass_args(launches[earlier], data, rows, batch, true, skip_starts);
      }
    }
    run(data, rows, true, batch, earlier, skip_starts, nullptr, lift);
    return pass_args(launches.back(), data, rows, batch, true, skip_starts);
  }

 private:
  std::size_t n() const { return std::size_t{1} << log_n_; }

  ntt::gpu::PassArgs<Word> pass_args(const ntt::gpu::PassLaunch& launch, std::vector<std::uint64_t>& data,
                                     ntt::RowRange rows, std::size_t batch, bool forward,
                                     const std::uint32_t* skip_starts) const {
    return ntt::gpu::make_pass_args(launch, data.data(), forward ? tables_.forward.data() : tables_.inverse.data(),
                                    tables_.constants.data(), tables_.stride, rows, batch, log_n_, skip_starts);
  }

  template <typename F>
  void for_each_thread(const ntt::gpu::LaunchShape& shape, F&& f) {
    for (std::uint32_t y = 0; y < shape.grid_y; ++y) {
      for (std::uint32_t x = 0; x < shape.grid_x; ++x) {
        for (std::uint32_t t = 0; t < shape.block; ++t) f(y, x * shape.block + t);
      }
    }
  }

  // The kernel of a pass, as launch_global_pass picks it: a lifted first
  // pass (PassArgs::lift, forward only) has its own.
  template <int G, bool Split>
  void global_pass(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape,
                   bool forward) {
    const bool lifted = args.lift.rows != nullptr;
    if (lifted && !forward) throw std::logic_error("an inverse pass cannot lift its input");
    if (forward) {
      if (lifted) {
        global_pass<G, Split, true, true>(args, shape);
      } else {
        global_pass<G, Split, true, false>(args, shape);
      }
    } else {
      global_pass<G, Split, false, false>(args, shape);
    }
  }

  template <int G, bool Split, bool Forward, bool Lifted>
  void global_pass(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape) {
    if constexpr (ntt::gpu::kGlobalPassLayout<Word, G, Split>.paired) {
      paired_pass<G, Forward, Lifted>(args, shape);
    } else {
      for_each_thread(shape, [&](std::uint32_t row, std::uint32_t item) {
        if (item >= ntt::gpu::global_pass_items_per_row<Word, G, Split>(args.log_n)) return;
        ntt::gpu::global_pass_item<Word, G, Forward, Split, Lifted>(args, row, item);
      });
    }
  }

  // The paired pass's two halves, each for every thread of a block before
  // the other (the kernel's barrier), the mailbox starting as garbage.
  template <int G, bool Forward, bool Lifted>
  void paired_pass(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape) {
    std::vector<ntt::gpu::PairedPassState<Word, G>> states(shape.block);
    std::vector<Word> mailbox(shape.dynamic_shared_bytes / sizeof(Word));
    for (std::uint32_t y = 0; y < shape.grid_y; ++y) {
      for (std::uint32_t x = 0; x < shape.grid_x; ++x) {
        for (Word& w : mailbox) w = static_cast<Word>(garbage_());
        for (std::uint32_t t = 0; t < shape.block; ++t) {
          ntt::gpu::paired_pass_send<Word, G, Forward, Lifted>(args, y, x * shape.block + t, states[t],
                                                               mailbox.data(), shape.block, t);
        }
        for (std::uint32_t t = 0; t < shape.block; ++t) {
          ntt::gpu::paired_pass_receive<Word, G, Forward>(args, states[t], mailbox.data(), shape.block, t);
        }
      }
    }
  }

  template <int G>
  void global_pass(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape, bool forward) {
    if (shape.split) {
      global_pass<G, true>(args, shape, forward);
    } else {
      global_pass<G, false>(args, shape, forward);
    }
  }

  void run_global_pass(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape,
                       bool forward) {
    switch (args.stage_count) {
      case 1: return global_pass<1>(args, shape, forward);
      case 2: return global_pass<2>(args, shape, forward);
      case 3: return global_pass<3>(args, shape, forward);
      case 4: return global_pass<4>(args, shape, forward);
    }
    throw std::logic_error("global pass of unexpected stage count");
  }

  void run_shared_region(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape,
                         bool forward, const RegionPhase& last = ntt::gpu::copy_tiles<Word, true>,
                         bool keep_fp64 = false) {
    if (!ntt::gpu::shared_region_supported(static_cast<int>(args.stage_count))) {
      throw std::logic_error("shared region of unexpected stage count");
    }
    ntt::gpu::with_region_variant(args.stage_count, args.address.consecutive, [&]<int Skip, bool Consecutive>() {
      shared_region<Skip, Consecutive>(args, shape, forward, last, keep_fp64);
    });
  }

  // The forward's rows phase, keep_fp64 as forward_region_then's.
  template <int Skip, bool Consecutive>
  static RegionPhase forward_rows(bool keep_fp64) {
    if (keep_fp64) return &ntt::gpu::tile_rows<true, Word, Skip, Consecutive, true>;
    return &ntt::gpu::tile_rows<true, Word, Skip, Consecutive>;
  }

  // Phases as the kernels run them: the split kernel's three rounds, or
  // columns, rows and the forward's `last`.
  template <int Skip, bool Consecutive>
  void shared_region(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape, bool forward,
                     const RegionPhase& last, bool keep_fp64) {
    using namespace ntt::gpu;
    using P = RegionPhase;
    if (shape.split) {
      if (forward) {
        region_blocks(args, shape, {P(&split_forward_first<Word, Skip>), P(&split_middle<true, Word>),
                                    P(&split_forward_last<Word>)});
      } else {
        region_blocks(args, shape, {P(&split_inverse_first<Word>), P(&split_middle<false, Word>),
                                    P(&split_inverse_last<Word, Skip>)});
      }
    } else if (forward) {
      region_blocks(args, shape,
                    {P(&forward_columns<Word, Skip, Consecutive>), forward_rows<Skip, Consecutive>(keep_fp64), last});
    } else {
      region_blocks(args, shape, {P(&copy_tiles<Word, false>), P(&tile_rows<false, Word, Skip, Consecutive>),
                                  P(&inverse_columns<Word, Skip, Consecutive>)});
    }
  }

  // Calls f.template operator()<G>() for a pass of g = 1..4 stages.
  template <typename F>
  static void with_pass_stages(int g, F&& f) {
    switch (g) {
      case 1: return f.template operator()<1>();
      case 2: return f.template operator()<2>();
      case 3: return f.template operator()<3>();
      case 4: return f.template operator()<4>();
    }
    throw std::logic_error("pass-region kernel of unexpected pass stage count");
  }

  // pass_in_region_block as a phase of the region's blocks, on `pass`.
  template <int G>
  static RegionPhase pass_phase(const ntt::gpu::PassArgs<Word>& pass, bool forward) {
    return [pass, forward](const ntt::gpu::PassArgs<Word>& region, Word* shared, std::uint32_t block,
                           std::uint32_t tiles, std::uint32_t thread) {
      const std::uint32_t first_tile = ntt::gpu::block_first_tile(region, block, tiles);
      if (forward) {
        ntt::gpu::pass_in_region_block<Word, G, true>(pass, shared, first_tile, thread);
      } else {
        ntt::gpu::pass_in_region_block<Word, G, false>(pass, shared, first_tile, thread);
      }
    };
  }

  // The pass-region kernel's phases (pass_region_kernel.cu).
  void run_pass_region(const ntt::gpu::PassArgs<Word>& pass, const ntt::gpu::PassArgs<Word>& region, bool forward,
                       std::size_t data_rows) {
    const auto g = static_cast<int>(pass.stage_count);
    const ntt::gpu::LaunchShape shape = ntt::gpu::pass_region_shape(g, log_n_, data_rows, sizeof(Word));
    with_pass_stages(g, [&]<int G>() {
      ntt::gpu::with_region_variant(region.stage_count, region.address.consecutive, [&]<int Skip, bool Consecutive>() {
        if constexpr (Skip == 0) {
          using namespace ntt::gpu;
          using P = RegionPhase;
          if (forward) {
            region_blocks(region, shape, {pass_phase<G>(pass, true), P(&forward_columns<Word, 0, Consecutive, true>),
                                          P(&tile_rows<true, Word, 0, Consecutive>), P(&copy_tiles<Word, true>)});
          } else {
            region_blocks(region, shape, {P(&copy_tiles<Word, false>), P(&tile_rows<false, Word, 0, Consecutive>),
                                          P(&inverse_columns<Word, 0, Consecutive, true>), pass_phase<G>(pass, false)});
          }
        }
      });
    });
  }

  // The pass-pair kernel (pass_pair_kernel.cu): its two phases, each for
  // every thread of a block before the other, shared memory starting as
  // garbage.
  void run_pass_pair(const ntt::gpu::PassArgs<Word>& first, const ntt::gpu::PassArgs<Word>& second, bool forward,
                     std::size_t data_rows) {
    const ntt::gpu::LaunchShape shape = ntt::gpu::pass_pair_shape(log_n_, data_rows, sizeof(Word));
    const auto g = static_cast<int>(first.stage_count);
    with_pass_stages(g, [&]<int G>() {
      if constexpr (G >= 2) {
        if (forward) {
          pass_pair_blocks<G, true>(first, second, shape);
        } else {
          pass_pair_blocks<G, false>(first, second, shape);
        }
      } else {
        throw std::logic_error("pass-pair kernel of unexpected pass stage count");
      }
    });
  }

  template <int G, bool Forward>
  void pass_pair_blocks(const ntt::gpu::PassArgs<Word>& first, const ntt::gpu::PassArgs<Word>& second,
                        const ntt::gpu::LaunchShape& shape) {
    const std::uint32_t lower_first_stage = ntt::gpu::pair_lower_first_stage(first, second, Forward);
    with_pass_log_n(first.log_n, lower_first_stage, [&]<std::uint32_t LogN>() {
      const bool lifted = Forward && first.lift.rows;  // a lifted first pass has its own kernel
      grouped_pass_blocks<2 * G>(first, shape, lower_first_stage, [&](const auto& place, Word* shared,
                                                                      std::uint32_t t) {
        if constexpr (Forward) {
          if (lifted) return ntt::gpu::pass_pair_phase<Word, G, true, true, true, LogN>(first, shared, place, t);
        }
        ntt::gpu::pass_pair_phase<Word, G, Forward, true, false, LogN>(first, shared, place, t);
      }, [&](const auto& place, Word* shared, std::uint32_t t) {
        ntt::gpu::pass_pair_phase<Word, G, Forward, false, false, LogN>(second, shared, place, t);
      });
    });
  }

  // Runs body<LogN>() with the LogN the kernels take (constant_pass_shape),
  // and counts the launches of the constant-log-N kernels.
  template <typename Body>
  void with_pass_log_n(std::uint32_t log_n, std::uint32_t lower_first_stage, Body&& body) {
    if (ntt::gpu::constant_pass_shape(log_n, lower_first_stage)) {
      ++constant_log_n_launches_;
      body.template operator()<ntt::gpu::kConstantPassLogN>();
    } else {
      body.template operator()<0>();
    }
  }

  // A pass-group kernel (pass_pair_kernel.cu): its phases, as run_pass_pair
  // runs the pair's two.
  void run_pass_group(const ntt::gpu::PassGroupArgs<Word>& passes, int shape, std::size_t data_rows) {
    const auto run = [&]<int Shape>() {
      with_pass_log_n(passes.pass[0].log_n, passes.pass[0].first_stage, [&]<std::uint32_t LogN>() {
        [&]<int... P>(std::integer_sequence<int, P...>) {
          grouped_pass_blocks<ntt::gpu::kPassGroupSpan<Shape>>(
              passes.pass[0], ntt::gpu::pass_pair_shape(log_n_, data_rows, sizeof(Word)), passes.pass[0].first_stage,
              [&](const auto& place, Word* shared, std::uint32_t t) {
                if (passes.pass[0].lift.rows) {
                  ntt::gpu::pass_group_phase<Word, Shape, P, LogN, true>(passes.pass[P], shared, place, t);
                } else {
                  ntt::gpu::pass_group_phase<Word, Shape, P, LogN>(passes.pass[P], shared, place, t);
                }
              }...);
        }(std::make_integer_sequence<int, ntt::gpu::kPassGroupShapes[Shape].count>{});
      });
    };
    [&]<int... Shapes>(std::integer_sequence<int, Shapes...>) {
      ((shape == Shapes ? run.template operator()<Shapes>() : void()), ...);
    }(std::make_integer_sequence<int, ntt::gpu::kPassGroupShapeCount>{});
  }

  // The blocks of a pair or group of passes over S stages: each phase for
  // every thread of a block before the next (the kernel's barriers), shared
  // memory starting as garbage.
  template <int S, typename... Phases>
  void grouped_pass_blocks(const ntt::gpu::PassArgs<Word>& first, const ntt::gpu::LaunchShape& shape,
                           std::uint32_t lower_first_stage, const Phases&... phases) {
    std::vector<Word> shared(shape.dynamic_shared_bytes / sizeof(Word));
    for (std::uint32_t y = 0; y < shape.grid_y; ++y) {
      const std::uint32_t row = ntt::gpu::visit_index(first, y, shape.grid_y);
      if (ntt::gpu::skipped_row(first, row)) continue;
      for (std::uint32_t x = 0; x < shape.grid_x; ++x) {
        for (Word& w : shared) w = static_cast<Word>(garbage_());
        const auto place = ntt::gpu::locate_pass_block<S>(first.log_n, lower_first_stage, row, x);
        (
            [&] {
              for (std::uint32_t t = 0; t < shape.block; ++t) phases(place, shared.data(), t);
            }(),
            ...);
      }
    }
  }

  // Each phase runs for every thread of the block before the next (the
  // kernel's barriers); shared memory starts as garbage, as on the device.
  void region_blocks(const ntt::gpu::PassArgs<Word>& args, const ntt::gpu::LaunchShape& shape,
                     const std::vector<RegionPhase>& phases) {
    std::vector<Word> shared(shape.dynamic_shared_bytes / sizeof(Word));
    for (std::uint32_t block = 0; block < shape.grid_x; ++block) {
      if (ntt::gpu::block_skipped(args, block, shape.tiles_per_block)) continue;
      for (Word& w : shared) w = static_cast<Word>(garbage_());
      for (const RegionPhase& phase : phases) {
        for (std::uint32_t t = 0; t < shape.block; ++t) phase(args, shared.data(), block, shape.tiles_per_block, t);
      }
    }
  }

  const ntt::BackendInfo& backend_;
  int log_n_;
  int sm_count_;
  bool allow_split_;
  ntt::NttSchedule schedule_;
  ntt::gpu::HostTables<Word> tables_;
  std::vector<ntt::gpu::IndexEntry> index_;
  std::mt19937_64 garbage_{12345};
  std::size_t fused_launches_ = 0;
  std::size_t paired_launches_ = 0;
  std::size_t constant_log_n_launches_ = 0;
  std::size_t grouped_launches_[ntt::gpu::kPassGroupShapeCount] = {};
};

}  // namespace fhe::testing
