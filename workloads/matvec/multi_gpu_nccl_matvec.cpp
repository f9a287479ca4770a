// The multi-GPU matvec protocol: rank 0's orchestration and the part every
// rank runs (keys, share, broadcast input, timed parts, reductions).
#include "workloads/matvec/multi_gpu_nccl_matvec.h"

#include "evaluator/cuda/cuda_evaluator.h"
#include "fhe/ckks/engine.h"
#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/params/preset.h"
#include "workloads/matvec/cuda_matvec.h"
#include "workloads/matvec/multi_gpu_nccl_communicator.h"
#include "workloads/matvec/multi_gpu_share.h"

namespace fhe::workloads {
namespace {

constexpr bool kModes[2] = {true, false};  // graph replay, then eager

std::string rank_label(int rank) { return "rank " + std::to_string(rank) + " on cuda:" + std::to_string(rank); }

// What one rank measured; the results and errors only on rank 0.
struct RankOutcome {
  std::vector<double> part_ms[2];       // per mode, timed samples
  std::vector<double> reduction_ms[2];  // per mode, timed samples (rank 0's are the reduction)
  std::vector<std::vector<double>> all_part_ms[2];  // rank 0: [rank][sample], gathered
  Ciphertext input, result[2];
  double max_abs_error[2] = {0, 0};
};

// The per-sample reduction of the partial sums into rank 0's `reduced` (lazy-moddown:
// the ranks' extended sums are added, then ModDown-and-rescale on rank 0).
class PartialReduction {
 public:
  PartialReduction(NcclCommunicator& comm, CudaMatvec& matvec, std::size_t rows, std::size_t n)
      : comm_(comm), matvec_(matvec) {
    if (comm_.rank() == 0 && comm_.ranks() > 1) {
      // lazy-moddown partials are extended sums (QP rows), finished after the adds.
      auto buffer = [&] {
        return matvec.result_is_extended() ? matvec.evaluator().make_extended() : CudaCiphertext(rows, n, 2);
      };
      for (int r = 1; r < comm_.ranks(); ++r) received_.push_back(buffer());
      reduced_ = buffer();
    }
  }

  // Enqueues the reduction of the last launch's partial sums on the matvec's
  // stream, between two CUDA events; waits (polling) and returns its ms.
  double run_timed() {
    const cudaStream_t stream = matvec_.stream();
    const CudaCiphertext& partial = matvec_.result();
    // Every partial has the same shape (the same terms, rescaled alike).
    const std::size_t words = partial.parts * partial.part_words();
    start_.record(stream);
    if (comm_.rank() != 0) {
      comm_.issued(ncclSend(partial.data(), words, ncclUint64, 0, comm_.get(), stream), "sending the partial sum");
    } else if (comm_.ranks() > 1) {
      comm_.queued(ncclGroupStart(), "group start");
      for (int r = 1; r < comm_.ranks(); ++r) {
        CudaCiphertext& into = received_[static_cast<std::size_t>(r - 1)];
        into.parts = partial.parts;
        into.level = partial.level;
        into.scale = partial.scale;
        comm_.queued(ncclRecv(into.data(), words, ncclUint64, r, comm_.get(), stream), "receiving a partial sum");
      }
      comm_.issued(ncclGroupEnd(), "receiving the partial sums");
      // Residues mod q_i: the evaluator's modular add, in rank order.
      const CudaEvaluator& ev = matvec_.evaluator();
      ev.add(partial, received_[0], reduced_);
      for (std::size_t i = 1; i < received_.size(); ++i) ev.add(reduced_, received_[i], reduced_);
      finished_ = matvec_.result_is_extended() ? &matvec_.finish(reduced_) : &reduced_;
    }
    stop_.record(stream);
    comm_.wait(stream, "the reduction");
    return stop_.elapsed_ms_since(start_);
  }

  // Rank 0: the reduced product (with one rank, its own result).
  const CudaCiphertext& reduced() const { return received_.empty() ? matvec_.result() : *finished_; }

 private:
  NcclCommunicator& comm_;
  CudaMatvec& matvec_;
  std::vector<CudaCiphertext> received_;
  CudaCiphertext reduced_;
  const CudaCiphertext* finished_ = &reduced_;  // reduced_, or the matvec's finished product
  cuda::Event start_, stop_;
};

// One rank's state: its share as a CudaMatvec (the engine holds the
// share's keys) and every buffer NCCL touches. Built before any NCCL work is enqueued and destroyed only after
// the communicator is closed or aborted, so no NCCL kernel can outlive a
// buffer it uses.
class RankRun {
 public:
  RankRun(const RankMessage& message, CkksEngine& engine, NcclCommunicator& comm)
      : message_(message), engine_(engine), comm_(comm), share_{message.rank, message.request.gpus},
        matvec_(engine, message.request.config, {.assume_free_bytes = 0, .share = share_, .shared_keys = nullptr}),
        input_(engine.preset().q_primes.size(), engine.ntt_plan().n(), 2),
        barrier_word_(1, "barrier word"),
        reduction_(comm, matvec_, engine.preset().q_primes.size(), engine.ntt_plan().n()),
        sent_(per_rank(), "gathered times"),
        gathered_(per_rank() * static_cast<std::size_t>(message.request.gpus), "gathered times") {}

  // The whole protocol from the broadcast to the closed communicator.
  RankOutcome measure() {
    const MultiGpuMatvecRequest& request = message_.request;
    const cudaStream_t stream = matvec_.stream();
    RankOutcome outcome;
    broadcast_input(outcome);
    FHE_CUDA_CHECK(cudaMemsetAsync(barrier_word_.data(), 0, sizeof(std::uint64_t), stream));
    for (int mode = 0; mode < 2; ++mode) {
      for (int i = 0; i < request.warmup + request.runs; ++i) {
        matvec_.stage(input_);
        const double part_ms = matvec_.time_launch_ms(kModes[mode]);
        barrier();
        const double reduction_ms = reduction_.run_timed();
        if (i < request.warmup) continue;
        outcome.part_ms[mode].push_back(part_ms);
        outcome.reduction_ms[mode].push_back(reduction_ms);
      }
      if (message_.rank == 0) {
        outcome.result[mode] = matvec_.evaluator().download(reduction_.reduced());
        outcome.max_abs_error[mode] = matvec_.max_abs_error(outcome.result[mode]);
      }
    }
    gather_part_times(outcome);
    comm_.close();
    return outcome;
  }

 private:
  std::size_t per_rank() const { return 2 * static_cast<std::size_t>(message_.request.runs); }

  // Rank 0 encrypts the input; NCCL broadcasts its words into every rank's
  // buffer. The metadata every rank knows: level 0, 2 parts, the default scale.
  void broadcast_input(RankOutcome& outcome) {
    input_.parts = 2;
    input_.level = 0;
    input_.scale = engine_.default_scale();
    if (message_.rank == 0) {
      outcome.input = engine_.encrypt_message(matvec_.problem().input_slots());
      if (outcome.input.scale != input_.scale) throw InvalidArgument("multi-GPU matvec: input not at the default scale");
      matvec_.evaluator().upload(outcome.input, input_);
    }
    comm_.issued(ncclBroadcast(input_.data(), input_.data(), input_.parts * input_.part_words(), ncclUint64, 0,
                               comm_.get(), matvec_.stream()),
                 "broadcasting the input");
    comm_.wait(matvec_.stream(), "broadcasting the input");
  }

  // Every rank has finished what it enqueued before this returns.
  void barrier() {
    comm_.issued(ncclAllReduce(barrier_word_.data(), barrier_word_.data(), 1, ncclUint64, ncclSum, comm_.get(),
                               matvec_.stream()),
                 "barrier");
    comm_.wait(matvec_.stream(), "barrier");
  }

  // Every rank's part times to every rank ([graph samples, eager samples]).
  void gather_part_times(RankOutcome& outcome) {
    const int runs = message_.request.runs;
    std::vector<double> mine(outcome.part_ms[0]);
    mine.insert(mine.end(), outcome.part_ms[1].begin(), outcome.part_ms[1].end());
    sent_.upload(mine);
    comm_.issued(ncclAllGather(sent_.data(), gathered_.data(), per_rank(), ncclFloat64, comm_.get(), matvec_.stream()),
                 "gathering the part times");
    comm_.wait(matvec_.stream(), "gathering the part times");
    std::vector<double> all(gathered_.size());
    gathered_.download(all);
    for (int mode = 0; mode < 2; ++mode) {
      for (int r = 0; r < message_.request.gpus; ++r) {
        const auto first = all.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * per_rank() +
                                                                      static_cast<std::size_t>(mode * runs));
        outcome.all_part_ms[mode].emplace_back(first, first + runs);
      }
    }
  }

  const RankMessage& message_;
  CkksEngine& engine_;
  NcclCommunicator& comm_;
  MatvecShare share_;
  CudaMatvec matvec_;
  CudaCiphertext input_;
  cuda::DeviceBuffer<std::uint64_t> barrier_word_;
  PartialReduction reduction_;
  cuda::DeviceBuffer<double> sent_, gathered_;
};

// `engine` is on cuda:rank; key generation (never timed) happens here.
RankOutcome run_rank(const RankMessage& message, CkksEngine& engine, NcclCommunicator& comm) {
  cuda::DeviceGuard guard(message.rank);
  engine.generate_keys(share_rotation_steps(message.request.config, {message.rank, message.request.gpus}));
  RankRun run(message, engine, comm);
  try {
    return run.measure();
  } catch (...) {
    comm.abort();  // before `run`'s buffers are freed
    throw;
  }
}

}  // namespace

MultiGpuMatvecResult run_multi_gpu_matvec(const MultiGpuMatvecRequest& request, const MultiGpuLaunch& launch) {
  keep_nvlink_multicast_off();
  validate(request.config, preset_by_name(request.preset).slots());
  const GpuInventory inventory = query_gpus();
  validate_gpu_count(request.config, request.gpus, static_cast<int>(inventory.gpus.size()), inventory.status);
  if (request.gpus > 1 && launch.rank_command.empty()) {
    throw InvalidArgument("run_multi_gpu_matvec: no command to start ranks 1.." + std::to_string(request.gpus - 1));
  }
  if (request.warmup < 0 || request.runs < 1 || request.timeout_s < 1) {
    throw InvalidArgument("multi-GPU matvec: warmup >= 0, runs >= 1 and timeout_s >= 1 are required");
  }
  const RankClock::time_point deadline = RankClock::now() + std::chrono::seconds(request.timeout_s);
  // Rank 0's engine first: it checks preset, backend and device before any
  // process starts, and resolves the backend every rank must use.
  CkksEngine engine(request.preset,
                    EngineOptions{.device = "cuda:0", .ntt_backend = request.ntt_backend, .seed = request.engine_seed});

  MultiGpuMatvecResult result;
  result.request = request;
  result.request.ntt_backend = engine.ntt_backend();
  for (int r = 0; r < request.gpus; ++r) {
    const MatvecShare share{r, request.gpus};
    result.shares.push_back(share_range(request.config, share));
    result.rank_rotations.push_back(static_cast<int>(share_rotation_steps(request.config, share).size()));
    result.rank_plans.push_back(plan_rank_memory(engine.preset(), request.config, share));
  }

  RankMessage message{result.request, 0, make_nccl_unique_id()};
  // Declared before the communicator: on error the communicator aborts
  // first, then the processes are killed.
  RankProcesses processes;
  for (int r = 1; r < request.gpus; ++r) {
    message.rank = r;
    processes.start(rank_label(r), launch.rank_command, encode_rank_message(message));
  }
  message.rank = 0;
  NcclCommunicator comm(message.nccl_id, 0, request.gpus, 0, deadline, [&processes] { processes.check(); });
  RankOutcome outcome = run_rank(message, engine, comm);
  processes.wait_all(deadline);

  result.input = std::move(outcome.input);
  MultiGpuModeResult* modes[2] = {&result.graph, &result.eager};
  for (int mode = 0; mode < 2; ++mode) {
    MultiGpuModeResult& out = *modes[mode];
    out.part_ms = std::move(outcome.all_part_ms[mode]);
    out.slowest_ms = slowest_rank_per_sample(out.part_ms);
    out.reduction_ms = std::move(outcome.reduction_ms[mode]);
    out.result = std::move(outcome.result[mode]);
    out.max_abs_error = outcome.max_abs_error[mode];
  }
  return result;
}

void run_matvec_rank(int message_fd) {
  const RankMessage message = decode_rank_message(read_rank_message(message_fd));
  const std::string prefix = rank_label(message.rank) + ": ";
  try {
    keep_nvlink_multicast_off();
    // This process serves one GPU: its main thread works on it throughout.
    FHE_CUDA_CHECK(cudaSetDevice(message.rank), rank_label(message.rank));
    const RankClock::time_point deadline = RankClock::now() + std::chrono::seconds(message.request.timeout_s);
    // No peer check: rank 0's death kills this process (PR_SET_PDEATHSIG),
    // and any other failure reaches here as an NCCL error or the deadline.
    NcclCommunicator comm(message.nccl_id, message.rank, message.request.gpus, message.rank, deadline);
    CkksEngine engine(message.request.preset,
                      EngineOptions{.device = "cuda:" + std::to_string(message.rank),
                                    .ntt_backend = message.request.ntt_backend,
                                    .seed = message.request.engine_seed});
    run_rank(message, engine, comm);
  } catch (const InvalidArgument& error) {
    throw InvalidArgument(prefix + error.what());
  } catch (const DeviceError& error) {
    throw DeviceError(prefix + error.what());
  } catch (const std::exception& error) {
    throw std::runtime_error(prefix + error.what());
  }
}

}  // namespace fhe::workloads
