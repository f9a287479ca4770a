// CudaKeySwitchWorkload: the memory check, the device inputs and one key
// switch per launch, eager or as a graph replay.
#include "workloads/keyswitch/cuda_keyswitch_workload.h"

#include <string>

#include <cuda_runtime_api.h>

#include "fhe/core/error.h"
#include "fhe/cuda/check.h"
#include "fhe/cuda/stream.h"

namespace fhe::workloads {
namespace {

std::string level_list(const std::vector<int>& levels) {
  std::string text;
  for (int level : levels) {
    if (!text.empty()) text += ',';
    text += std::to_string(level);
  }
  return text;
}

// Every check that needs no allocation, then the memory plan against the
// free device memory: the refusal comes before keys or inputs exist.
MemoryPlan checked_plan(const CkksEngine& engine, const std::vector<int>& levels, int rotation_step,
                        std::size_t assume_free_bytes) {
  if (!engine.on_cuda()) {
    throw InvalidArgument("CudaKeySwitchWorkload: engine on " + engine.device().str() +
                          "; build it with device \"cuda:N\"");
  }
  if (levels.empty()) throw InvalidArgument("CudaKeySwitchWorkload: no levels");
  KeySwitchProblem::require_keys(engine, rotation_step);
  for (int level : levels) engine.preset().active_q_rows(level);  // validates
  cuda::DeviceGuard guard(engine.device().index);
  MemoryPlan plan = CudaKeySwitchWorkload::plan_memory(engine, levels);
  std::size_t free_bytes = assume_free_bytes, total_bytes = 0;
  if (free_bytes == 0) FHE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), engine.device().str());
  require_plan_fits(engine.preset(), plan, "keyswitch at levels " + level_list(levels) + " (backend " +
                                               engine.ntt_backend() + ")",
                    free_bytes, engine.device().str());
  return plan;
}

}  // namespace

MemoryPlan CudaKeySwitchWorkload::plan_memory(const CkksEngine& engine, const std::vector<int>& levels) {
  // The preset's plan with what the engine adds: its keys, however many
  // Galois keys it holds, and the evaluator's per-level constants.
  MemoryPlan plan = plan_keyswitch_memory(engine.preset(), levels, DeviceKind::cuda);
  const CudaMemoryEstimate evaluator = CudaEvaluator::estimate_memory(engine);
  for (MemoryItem& item : plan.items) {
    if (item.name == "keys") item.bytes = evaluator.key_bytes;
    if (item.name == "evaluator workspaces") item.bytes = evaluator.workspace_bytes + evaluator.constant_bytes;
  }
  return plan;
}

CudaKeySwitchWorkload::CudaKeySwitchWorkload(CkksEngine& engine, std::vector<int> levels, int rotation_step,
                                             CudaKeySwitchOptions options)
    : engine_(engine),
      plan_(checked_plan(engine, levels, rotation_step, options.assume_free_bytes)),
      problem_(engine, levels, rotation_step) {
  cuda::DeviceGuard guard(engine_.device().index);
  CudaEvaluatorOptions evaluator_options;
  evaluator_options.assume_free_bytes = options.assume_free_bytes;
  evaluator_ = std::make_unique<CudaEvaluator>(engine_, evaluator_options);
  const std::size_t rows = engine_.preset().q_primes.size(), n = engine_.ntt_plan().n();
  for (const KeySwitchProblem::LevelInput& in : problem_.inputs()) {
    LevelBuffers buffers{CudaCiphertext(rows, n, 2), CudaCiphertext(rows, n, 3)};
    evaluator_->upload(in.fresh, buffers.fresh);
    evaluator_->multiply(buffers.fresh, buffers.fresh, buffers.product);
    levels_.push_back(std::move(buffers));
  }
  output_ = CudaCiphertext(rows, n, 2);
  replays_.resize(problem_.operations().size());
  evaluator_->synchronize();
}

CudaKeySwitchWorkload::~CudaKeySwitchWorkload() = default;

void CudaKeySwitchWorkload::enqueue(const KeySwitchOperation& op) {
  const LevelBuffers& in = levels_[problem_.input_index(op.level)];
  if (op.kind == KeySwitchKind::relinearize) {
    evaluator_->relinearize(in.product, output_);
  } else {
    evaluator_->rotate(in.fresh, problem_.rotation_step(), output_);
  }
}

const KeySwitchOperation& CudaKeySwitchWorkload::operation_at(std::size_t operation) const {
  if (operation >= operations().size()) {
    throw InvalidArgument("CudaKeySwitchWorkload has no operation " + std::to_string(operation) + " (" +
                          std::to_string(operations().size()) + " operations)");
  }
  return operations()[operation];
}

const CudaKeySwitchWorkload::Replay& CudaKeySwitchWorkload::captured(std::size_t operation) {
  const KeySwitchOperation& op = operation_at(operation);
  Replay& replay = replays_[operation];
  if (!replay.graph.captured()) {
    // The operation takes preallocated buffers and branches only on
    // metadata, so its capture is valid for every replay.
    cuda::DeviceGuard guard(engine_.device().index);
    replay.graph = cuda::CapturedGraph::capture(
        stream(), [&] { enqueue(op); }, op.name() + " graph on " + engine_.device().str());
    replay.parts = output_.parts;
    replay.level = output_.level;
    replay.scale = output_.scale;
  }
  return replay;
}

void CudaKeySwitchWorkload::launch(std::size_t operation, bool graph) {
  const KeySwitchOperation& op = operation_at(operation);
  cuda::DeviceGuard guard(engine_.device().index);
  if (!graph) {
    enqueue(op);
    return;
  }
  const Replay& replay = captured(operation);
  replay.graph.launch(stream());
  output_.parts = replay.parts;
  output_.level = replay.level;
  output_.scale = replay.scale;
}

double CudaKeySwitchWorkload::time_launch_ms(std::size_t operation, bool graph) {
  cuda::DeviceGuard guard(engine_.device().index);
  if (graph) captured(operation);  // a first capture is host work: keep it out of the timed region
  const cuda::Event start, stop;
  start.record(stream());
  launch(operation, graph);
  stop.record(stream());
  stop.synchronize();
  return stop.elapsed_ms_since(start);
}

Ciphertext CudaKeySwitchWorkload::download_output() const {
  if (output_.parts == 0) throw InvalidArgument("CudaKeySwitchWorkload::download_output: nothing launched yet");
  cuda::DeviceGuard guard(engine_.device().index);
  return evaluator_->download(output_);
}

}  // namespace fhe::workloads
