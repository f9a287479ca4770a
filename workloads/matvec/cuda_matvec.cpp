// CudaMatvec: buffers, the fixed enqueue sequence (diagonal / BSGS over
// fork-joined worker streams) and its graph capture.
#include "workloads/matvec/cuda_matvec.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <string>

#include <cuda_runtime_api.h>

#include "evaluator/cuda/eval_kernels.h"
#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/cuda/graph.h"
#include "fhe/cuda/staged_upload.h"
#include "fhe/cuda/stream.h"
#include "workloads/matvec/diagonal_encoding.h"
#include "workloads/matvec/matvec_workload.h"

namespace fhe::workloads {
namespace {

// The memory plan counts the inner sums of one kernel pass per worker.
static_assert(kLazyBsgsInnerSumsPerPass == cuda::kMaxProductOutputs);
static_assert(kLazyBsgsFusedInnerSums == cuda::kMaxRotationSums);

// The device twin of the CPU TermAccumulator (same operation order, so the
// same words): batch = sum up to `batch` raw products, then rescale the sum;
// loop = rescale each product. Writes into caller-owned buffers only.
class DeviceTerms {
 public:
  DeviceTerms(const CudaEvaluator& evaluator, const MatvecConfig& config, CudaCiphertext& product,
              CudaCiphertext& pending, CudaCiphertext& rescaled, CudaCiphertext& total)
      : ev_(evaluator), config_(config), product_(product), pending_(pending), rescaled_(rescaled),
        total_(total) {}

  void add_term(const CudaCiphertext& rotated, const CudaCiphertext& diagonal) {
    if (config_.policy == DiagonalPolicy::loop) {
      ev_.multiply_plain(rotated, diagonal, product_);
      add_rescaled(product_);
      return;
    }
    if (pending_terms_ == 0) {
      ev_.multiply_plain(rotated, diagonal, pending_);
    } else {
      ev_.multiply_plain(rotated, diagonal, product_);
      ev_.add(pending_, product_, pending_);
    }
    if (++pending_terms_ == config_.batch) flush();
  }

  // Whether any term was added (then `total` holds the rescaled sum).
  bool finish() {
    flush();
    return has_total_;
  }

 private:
  void flush() {
    if (pending_terms_ == 0) return;
    add_rescaled(pending_);
    pending_terms_ = 0;
  }
  void add_rescaled(const CudaCiphertext& raw) {
    if (!has_total_) {
      ev_.rescale(raw, total_);
      has_total_ = true;
      return;
    }
    ev_.rescale(raw, rescaled_);
    ev_.add(total_, rescaled_, total_);
  }

  const CudaEvaluator& ev_;
  const MatvecConfig& config_;
  CudaCiphertext &product_, &pending_, &rescaled_, &total_;
  int pending_terms_ = 0;
  bool has_total_ = false;
};

// The most steps one worker rotates, hence the chunk buffers it needs.
int largest_part(const std::vector<std::pair<int, int>>& ranges) {
  int largest = 0;
  for (const auto& [begin, end] : ranges) largest = std::max(largest, end - begin);
  return largest;
}

}  // namespace

struct CudaMatvec::Worker {
  std::unique_ptr<CudaEvaluator> evaluator;
  std::vector<CudaCiphertext> rotated;  // diagonal: one hoisted chunk
  // Term accumulation, the bsgs inner sum and its giant-step rotation, and
  // the worker's partial sum.
  CudaCiphertext product, pending, rescaled, inner, rotated_inner, sum;
  // lazy-moddown: [0] is the worker's sum before ModDown; bsgs adds the
  // inner sums of up to kLazyBsgsInnerSumsPerPass giant steps, from one
  // pass over the baby steps. Giant step 0 (no rotation) writes its inner
  // sum into [0] itself, so the sum starts without a copy; the other
  // passes use [1..].
  std::vector<CudaCiphertext> extended;
  std::pair<int, int> range;  // diagonals (diagonal) or giant steps (bsgs)
  bool has_sum = false;       // set while enqueueing (metadata, not data)
  cuda::OrderEvent fork, join;

  CudaCiphertext& extended_sum() { return extended.front(); }
  const CudaCiphertext& extended_sum() const { return extended.front(); }
};

struct CudaMatvec::Graph {
  cuda::CapturedGraph replay;
  double scale = 0;  // the input scale baked into the captured metadata
};

CudaMatvec::CudaMatvec(const CkksEngine& engine, MatvecConfig config, CudaMatvecOptions options)
    : engine_(engine), config_(config), share_(options.share) {
  if (!engine_.on_cuda()) {
    throw InvalidArgument("CudaMatvec: engine on " + engine_.device().str() + "; build it with device \"cuda:N\"");
  }
  validate(config_, engine_.slot_count());
  validate_share(config_, share_);
  for (int step : share_rotation_steps(config_, share_)) {
    if (!engine_.has_galois_key(engine_.galois_element_for_step(step))) {
      throw InvalidArgument("CudaMatvec needs the Galois key of rotation step " + std::to_string(step) +
                            " (generate_keys with matvec_rotation_steps, or share_rotation_steps for a share)");
    }
  }
  const Preset& preset = engine_.preset();
  cuda::DeviceGuard guard(engine_.device().index);
  // Plan before allocating anything, so an oversize configuration is refused
  // with the largest one that fits instead of failing mid-allocation.
  plan_ = plan_share_memory(preset, config_, share_);
  std::size_t free_bytes = options.assume_free_bytes, total_bytes = 0;
  if (free_bytes == 0) FHE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), engine_.device().str());
  if (options.shared_keys) free_bytes += plan_.bytes_of("keys");  // resident already
  if (share_.ranks == 1) {
    require_fits(preset, config_, DeviceKind::cuda, free_bytes, engine_.device().str());
  } else {
    require_plan_fits(preset, plan_,
                      "matvec rank " + std::to_string(share_.rank) + " of " + std::to_string(share_.ranks),
                      free_bytes, engine_.device().str());
  }

  problem_ = make_matvec_problem(config_.dim, engine_.slot_count(), config_.seed);
  const std::size_t rows = preset.q_primes.size(), n = engine_.ntt_plan().n();
  const bool bsgs = config_.method == MatvecMethod::bsgs;
  const int g = bsgs_baby_steps(config_);
  const auto ranges = share_worker_ranges(config_, share_);
  const bool lazy = lazy_moddown();
  const int chunk = bsgs || lazy ? 0 : std::min(config_.hoist, largest_part(ranges));
  // Rotations, products and sums never exceed 2 parts; plaintexts hold 1.
  auto two_part = [&] { return CudaCiphertext(rows, n, 2); };
  for (int w = 0; w < config_.workers; ++w) {
    auto worker = std::make_unique<Worker>();
    CudaEvaluatorOptions evaluator_options;
    evaluator_options.shared_keys = w > 0 ? workers_[0]->evaluator->keys() : options.shared_keys;
    worker->evaluator = std::make_unique<CudaEvaluator>(engine_, evaluator_options);
    for (int k = 0; k < chunk; ++k) worker->rotated.push_back(two_part());
    worker->product = two_part();
    worker->pending = two_part();
    worker->rescaled = two_part();
    worker->sum = two_part();
    if (bsgs) {
      worker->inner = two_part();
      worker->rotated_inner = two_part();
    }
    worker->range = ranges[static_cast<std::size_t>(w)];
    if (lazy) {
      const int inner_sums =
          bsgs ? std::min(worker->range.second - worker->range.first, kLazyBsgsInnerSumsPerPass) : 0;
      for (int k = 0; k < 1 + inner_sums; ++k) worker->extended.push_back(worker->evaluator->make_extended());
    }
    workers_.push_back(std::move(worker));
  }
  input_ = two_part();
  const CudaEvaluator& main = *workers_[0]->evaluator;
  if (bsgs && !fuses_bsgs_inner_sums()) {
    for (int i = lazy ? 0 : 1; i < g; ++i) baby_.push_back(lazy ? main.make_extended() : two_part());
  }
  // One slot per diagonal, so indices stay those of the diagonals; another
  // rank's stay empty (never read here).
  const int diagonal_count = matvec_diagonal_count(config_);
  if (lazy) {
    block_diagonals_.resize(static_cast<std::size_t>(diagonal_count));
  } else {
    diagonals_.resize(static_cast<std::size_t>(diagonal_count));
  }
  std::vector<int> used;
  for (int s = 0; s < diagonal_count; ++s) {
    if (share_uses_diagonal(config_, share_, s)) used.push_back(s);
  }
  cuda::StagedUploader staging;  // one diagonal copied while the next is formed
  encode_diagonals(engine_, problem_, config_, used, [&](int s, Plaintext diagonal) {
    const auto i = static_cast<std::size_t>(s);
    if (lazy) {  // a diagonal of period dim: one word a block of n / (2 dim)
      block_diagonals_[i] = main.upload_blocks(diagonal, staging);
    } else {
      diagonals_[i] = CudaCiphertext(rows, n, 1);
      main.upload(diagonal, diagonals_[i], staging);
    }
  });
  staging.finish();
}

CudaMatvec::~CudaMatvec() = default;

cudaStream_t CudaMatvec::stream() const { return workers_[0]->evaluator->stream(); }

void CudaMatvec::check_stageable(int level, std::size_t parts, double scale) const {
  if (level != 0 || parts != 2) {
    throw InvalidArgument("CudaMatvec::stage: a fresh level-0 ciphertext of 2 parts (got level " +
                          std::to_string(level) + ", " + std::to_string(parts) + " parts)");
  }
  // The graph replays the metadata of its capture; a different scale would
  // silently mislabel the result.
  if (graph_ && scale != graph_->scale) {
    throw InvalidArgument("CudaMatvec::stage: input scale differs from the captured graph's");
  }
}

void CudaMatvec::stage(const Ciphertext& input) {
  check_stageable(input.level, input.size(), input.scale);
  workers_[0]->evaluator->upload(input, input_);
}

void CudaMatvec::stage(const CudaCiphertext& input) {
  check_stageable(input.level, input.parts, input.scale);
  workers_[0]->evaluator->copy(input, input_);
}

void CudaMatvec::launch(bool graph) {
  if (!input_.parts) throw InvalidArgument("CudaMatvec::launch: stage an input first");
  cuda::DeviceGuard guard(engine_.device().index);
  if (!graph) {
    enqueue();
    return;
  }
  if (!graph_) {
    // Capture once: every operation takes preallocated buffers and branches
    // only on metadata, so the captured sequence is valid for any staged input.
    auto captured = std::make_unique<Graph>();
    captured->scale = input_.scale;
    captured->replay = cuda::CapturedGraph::capture(stream(), [&] { enqueue(); }, "matvec graph");
    graph_ = std::move(captured);
  }
  graph_->replay.launch(stream());
}

double CudaMatvec::time_launch_ms(bool graph) {
  cuda::DeviceGuard guard(engine_.device().index);
  const cuda::Event start, stop;
  start.record(stream());
  launch(graph);
  stop.record(stream());
  stop.synchronize();
  return stop.elapsed_ms_since(start);
}

void CudaMatvec::enqueue() {
  if (config_.method == MatvecMethod::bsgs) {
    enqueue_bsgs();
  } else {
    enqueue_diagonal();
  }
}

void CudaMatvec::fork() {
  for (std::size_t w = 1; w < workers_.size(); ++w) {
    workers_[w]->fork.order(stream(), workers_[w]->evaluator->stream());
  }
}

void CudaMatvec::join_and_reduce() {
  Worker& main = *workers_[0];
  const bool lazy = lazy_moddown();
  for (std::size_t w = 1; w < workers_.size(); ++w) {
    Worker& worker = *workers_[w];
    worker.join.order(worker.evaluator->stream(), stream());
    if (!worker.has_sum) continue;
    CudaCiphertext& total = lazy ? main.extended_sum() : main.sum;
    CudaCiphertext& part = lazy ? worker.extended_sum() : worker.sum;
    if (main.has_sum) {
      main.evaluator->add(total, part, total);
    } else {
      main.evaluator->copy(part, total);
      main.has_sum = true;
    }
  }
  // The partial sums were added before ModDown: one ModDown-and-rescale (a
  // share of several ranks leaves that to rank 0, after the exchange).
  if (lazy && main.has_sum && !result_is_extended()) finish(main.extended_sum());
}

bool CudaMatvec::result_is_extended() const {
  return lazy_moddown() && share_.ranks > 1;
}

const CudaCiphertext& CudaMatvec::finish(const CudaCiphertext& extended_sum) {
  Worker& main = *workers_[0];
  main.evaluator->mod_down_rescale(extended_sum, main.sum);
  return main.sum;
}

void CudaMatvec::enqueue_diagonal() {
  fork();
  for (auto& worker_ptr : workers_) {
    Worker& worker = *worker_ptr;
    const CudaEvaluator& ev = *worker.evaluator;
    if (lazy_moddown()) {
      // Every term stays before its ModDown (Evaluator::accumulate_rotations).
      worker.extended_sum().parts = 0;
      for (const std::vector<int>& steps : hoist_chunks(worker.range.first, worker.range.second, config_.hoist)) {
        std::vector<const CudaBlockPlain*> plains;
        for (int s : steps) plains.push_back(&block_diagonals_[static_cast<std::size_t>(s)]);
        ev.accumulate_rotations(input_, steps, plains, worker.extended_sum());
      }
      worker.has_sum = worker.extended_sum().parts != 0;
      continue;
    }
    DeviceTerms terms(ev, config_, worker.product, worker.pending, worker.rescaled, worker.sum);
    const auto [begin, end] = worker.range;
    for (std::vector<int> steps : hoist_chunks(begin, end, config_.hoist)) {
      if (steps.front() == 0) {
        terms.add_term(input_, diagonals_[0]);  // step 0 is the input itself
        steps.erase(steps.begin());
      }
      if (steps.empty()) continue;
      ev.rotate_many_by_steps(input_, steps, std::span<CudaCiphertext>(worker.rotated.data(), steps.size()));
      for (std::size_t k = 0; k < steps.size(); ++k) {
        terms.add_term(worker.rotated[k], diagonals_[static_cast<std::size_t>(steps[k])]);
      }
    }
    worker.has_sum = terms.finish();
  }
  join_and_reduce();
}

// One worker whose giant steps fit one pass of rotation sums forms their
// inner sums straight from the baby steps' key products (the list form of
// CudaEvaluator::accumulate_rotations, the same words): each baby step's key
// streams once for all of them and the baby steps are never stored.
bool CudaMatvec::fuses_bsgs_inner_sums() const {
  const auto [begin, end] = workers_[0]->range;
  return config_.method == MatvecMethod::bsgs && lazy_moddown() &&
         lazy_bsgs_fuses_inner_sums(static_cast<int>(workers_.size()), end - begin);
}

void CudaMatvec::enqueue_bsgs_lazy() {
  const int g = bsgs_baby_steps(config_);
  const bool fused = fuses_bsgs_inner_sums();
  const CudaEvaluator& main = *workers_[0]->evaluator;
  // Otherwise the baby steps 0..g-1 are kept before their ModDown, one
  // decomposition per chunk.
  std::vector<const CudaCiphertext*> baby;
  std::vector<int> every_baby(static_cast<std::size_t>(g));
  std::iota(every_baby.begin(), every_baby.end(), 0);
  if (!fused) {
    for (const std::vector<int>& steps : hoist_chunks(0, g, config_.hoist)) {
      main.rotate_many_extended(input_, steps,
                                std::span<CudaCiphertext>(baby_.data() + steps.front(), steps.size()));
    }
    for (const CudaCiphertext& term : baby_) baby.push_back(&term);
  }
  // Giant steps first..first+count-1's diagonals for the baby steps `babies`.
  auto giant_diagonals = [&](int first, int count, const std::vector<int>& babies) {
    std::vector<std::vector<const CudaBlockPlain*>> diagonals(static_cast<std::size_t>(count));
    for (int j = 0; j < count; ++j) {
      for (int i : babies) {
        const auto diagonal = static_cast<std::size_t>((first + j) * g + i);
        diagonals[static_cast<std::size_t>(j)].push_back(&block_diagonals_[diagonal]);
      }
    }
    return diagonals;
  };
  // Per giant step (across workers): the inner sum over QP, rotated from
  // that extended form into the sum (Evaluator: run_bsgs_lazy).
  // The inner sums of a worker's giant steps come from one pass over the
  // baby steps per kLazyBsgsInnerSumsPerPass of them: the baby steps are
  // most of the bytes this phase reads.
  fork();
  for (auto& worker_ptr : workers_) {
    Worker& worker = *worker_ptr;
    const CudaEvaluator& ev = *worker.evaluator;
    worker.extended_sum().parts = 0;
    const auto [begin, end] = worker.range;
    const int pass = static_cast<int>(worker.extended.size()) - 1;
    for (int first = begin; first < end; first += pass) {
      const int count = std::min(pass, end - first);
      // Giant step 0 (a rotation by 0) writes its inner sum into the sum,
      // [0], instead of a copy there; the others go to [1..] and are rotated
      // into it.
      const bool has_step0 = first == 0;
      std::span<CudaCiphertext> inner_sums(worker.extended.data() + (has_step0 ? 0 : 1),
                                           static_cast<std::size_t>(count));
      if (fused) {
        for (CudaCiphertext& sum : inner_sums) sum.parts = 0;
        for (const std::vector<int>& steps : hoist_chunks(0, g, config_.hoist)) {
          ev.accumulate_rotations(input_, steps, giant_diagonals(first, count, steps), inner_sums);
        }
      } else {
        ev.multiply_plain_sums(baby, giant_diagonals(first, count, every_baby), inner_sums);
      }
      // The pass's giant-step rotations together: their c1 come down to Q
      // in one batched ModDown.
      std::vector<const CudaCiphertext*> rotated;
      std::vector<int> steps;
      for (int k = has_step0 ? 1 : 0; k < count; ++k) {
        rotated.push_back(&inner_sums[static_cast<std::size_t>(k)]);
        steps.push_back((first + k) * g);
      }
      if (!rotated.empty()) ev.accumulate_extended_rotations(rotated, steps, worker.extended_sum());
    }
    worker.has_sum = worker.extended_sum().parts != 0;
  }
  join_and_reduce();
}

void CudaMatvec::enqueue_bsgs() {
  if (lazy_moddown()) {
    enqueue_bsgs_lazy();
    return;
  }
  const int g = bsgs_baby_steps(config_);
  const CudaEvaluator& main = *workers_[0]->evaluator;
  // Baby steps on the main stream, one hoisted decomposition per chunk.
  for (const std::vector<int>& steps : hoist_chunks(1, g, config_.hoist)) {
    main.rotate_many_by_steps(input_, steps,
                              std::span<CudaCiphertext>(baby_.data() + (steps.front() - 1), steps.size()));
  }
  auto baby = [&](int i) -> const CudaCiphertext& { return i == 0 ? input_ : baby_[static_cast<std::size_t>(i - 1)]; };
  // Giant steps across workers: inner sums, then one rotation each.
  fork();
  for (auto& worker_ptr : workers_) {
    Worker& worker = *worker_ptr;
    const CudaEvaluator& ev = *worker.evaluator;
    worker.has_sum = false;
    for (int j = worker.range.first; j < worker.range.second; ++j) {
      DeviceTerms terms(ev, config_, worker.product, worker.pending, worker.rescaled, worker.inner);
      for (int i = 0; i < g; ++i) terms.add_term(baby(i), diagonals_[static_cast<std::size_t>(j * g + i)]);
      terms.finish();
      const CudaCiphertext* term = &worker.inner;
      if (j > 0) {
        ev.rotate(worker.inner, j * g, worker.rotated_inner);
        term = &worker.rotated_inner;
      }
      if (worker.has_sum) {
        ev.add(worker.sum, *term, worker.sum);
      } else {
        ev.copy(*term, worker.sum);
        worker.has_sum = true;
      }
    }
  }
  join_and_reduce();
}

Ciphertext CudaMatvec::download_result() const { return workers_[0]->evaluator->download(result()); }

const CudaCiphertext& CudaMatvec::result() const {
  const Worker& main = *workers_[0];
  if (!main.has_sum) throw InvalidArgument("CudaMatvec::result: nothing launched yet");
  return result_is_extended() ? main.extended_sum() : main.sum;
}

const CudaEvaluator& CudaMatvec::evaluator() const { return *workers_[0]->evaluator; }

double CudaMatvec::max_abs_error(const Ciphertext& result) const {
  const auto decoded = engine_.decrypt_message(result);
  std::vector<double> real(decoded.size());
  for (std::size_t i = 0; i < decoded.size(); ++i) real[i] = decoded[i].real();
  return problem_.max_abs_error(real);
}

}  // namespace fhe::workloads
