// The data movement of a level-0 key switch's ModUp and key product at the
// default preset, without arithmetic (cuda_modup_floor/): D = 10 digits
// extended to T = 39 QP rows (a 200 MB intermediate), each written by the
// conversion from its digit's S = 4 source rows, read and written once by
// the forward pass pair, and read with the key's two halves (400 MB) by the
// key product, which writes the two output parts.
//   "whole": each step over every target row, the evaluator's order: three
//     launches, the intermediate through DRAM (beyond the 50 MB L2).
//   "chunkR": the three steps R target rows at a time (10 R rows of
//     intermediate, 5 R MB), so the pair and the key product find it in L2;
//     the key product drops its lines from L2 after reading them
//     (discard.global.L2), so they are never written back. "-keep" keeps
//     them (written back when evicted). "-last": the conversion's stores
//     and the pair's loads and stores carry an L2 evict_last policy
//     (createpolicy), so the streamed key lines go before the chunk's; the
//     persisting set-aside is at its maximum while they run, in case the
//     hint is honoured only within it. "-window": no hint in the kernels;
//     each launch carries an access policy window over the chunk's rows
//     (persisting on a hit, streaming on a miss) as a launch attribute,
//     which a captured launch keeps, as the windowed ModUp's launches do
//     (experiment/modup-chunks-53).
// The intermediate is target-major, so a chunk's rows are one range.
// The difference is the most that running the ModUp in L2-sized chunks of
// target rows could save; the extra launches are part of it (eager, and
// replayed from a CUDA graph). Cold samples (the L2 flushed first).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/l2_flush.cuh"
#include "fhe/core/device_info.h"
#include "fhe/core/host_device.h"
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/cuda/memory_access.cuh"

namespace {

using fhe::cuda::DeviceBuffer;
using u64 = std::uint64_t;

constexpr int kLogN = 16;
constexpr std::size_t kN = std::size_t{1} << kLogN;
constexpr int kDigits = 10, kTargets = 39, kSources = 35, kSourcesPerDigit = 4;
constexpr int kThreads = 256;
constexpr int kIterations = 50;

FHE_HD std::size_t row_word(std::size_t row, std::size_t i) { return (row << kLogN) + i; }
FHE_HD std::size_t intermediate_row(int digit, int target) {
  return static_cast<std::size_t>(target) * kDigits + digit;
}
FHE_HD std::size_t key_row(int digit, int target, int half) { return 2 * intermediate_row(digit, target) + half; }

// An intermediate word's access: plain, or under an L2 evict_last policy.
struct IntermediateAccess {
  bool last;
  u64 policy;
  __device__ explicit IntermediateAccess(bool keep_last) : last(keep_last), policy(0) {
    if (last) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  }
  __device__ u64 load(const u64* word) const {
    if (!last) return *word;
    u64 v;
    asm volatile("ld.global.L2::cache_hint.u64 %0, [%1], %2;" : "=l"(v) : "l"(word), "l"(policy));
    return v;
  }
  __device__ void store(u64* word, u64 v) const {
    if (!last) {
      *word = v;
      return;
    }
    asm volatile("st.global.L2::cache_hint.u64 [%0], %1, %2;" ::"l"(word), "l"(v), "l"(policy) : "memory");
  }
};

// Word i of every target in [first, first + count) of one digit: the xor of
// its sources' words plus the target.
__global__ void __launch_bounds__(kThreads)
    convert_floor(const u64* source, u64* intermediate, int first, int count, bool last) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  const int digit = static_cast<int>(blockIdx.y);
  const IntermediateAccess access(last);
  u64 x = 0;
#pragma unroll
  for (int s = 0; s < kSourcesPerDigit; ++s) x ^= source[row_word((kSourcesPerDigit * digit + s) % kSources, i)];
  for (int t = first; t < first + count; ++t) {
    access.store(intermediate + row_word(intermediate_row(digit, t), i), x + t);
  }
}

// The pair's one round trip: 16 words a thread, 256 apart (a block's 4096
// words), read and written back xor 1.
__global__ void __launch_bounds__(kThreads) pass_floor(u64* intermediate, int first, int count, bool last) {
  const int digit = static_cast<int>(blockIdx.y) / count;
  const int target = first + static_cast<int>(blockIdx.y) % count;
  u64* words = intermediate + row_word(intermediate_row(digit, target), blockIdx.x * 4096u + threadIdx.x);
  const IntermediateAccess access(last);
  u64 v[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) v[k] = access.load(words + 256 * k);
#pragma unroll
  for (int k = 0; k < 16; ++k) access.store(words + 256 * k, v[k] ^ 1u);
}

// A key word, read once: cached streaming, as the key products read theirs.
__device__ u64 streamed(const u64* word) { return __ldcs(reinterpret_cast<const unsigned long long*>(word)); }

// Word i of the two output parts of one target: the sums over the digits of
// the intermediate's word xor each key half's (streamed, evict-first).
__global__ void __launch_bounds__(kThreads) key_floor(u64* intermediate, const u64* key, u64* out, int first,
                                                      bool discard) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  const int target = first + static_cast<int>(blockIdx.y);
  u64 sum0 = 0, sum1 = 0;
  for (int d = 0; d < kDigits; ++d) {
    const u64 x = intermediate[row_word(intermediate_row(d, target), i)];
    sum0 += x ^ streamed(key + row_word(key_row(d, target, 0), i));
    sum1 += x ^ streamed(key + row_word(key_row(d, target, 1), i));
  }
  out[row_word(target, i)] = sum0;
  out[row_word(kTargets + target, i)] = sum1;
  if (!discard) return;
  __syncwarp();  // every lane has its words: the warp's two lines a digit go
  if (threadIdx.x % fhe::ntt::gpu::kWordsPerL2Line == 0) {
    for (int d = 0; d < kDigits; ++d) {
      fhe::ntt::gpu::discard_line_from_l2(intermediate + row_word(intermediate_row(d, target), i));
    }
  }
}

// What the three steps leave in output word i of part `half` of `target`,
// for the fill below (host, for the check).
u64 expected_output(int target, int half, std::size_t i) {
  u64 sum = 0;
  for (int d = 0; d < kDigits; ++d) {
    u64 x = 0;
    for (int s = 0; s < kSourcesPerDigit; ++s) x ^= row_word((kSourcesPerDigit * d + s) % kSources, i);
    sum += ((x + target) ^ 1u) ^ row_word(key_row(d, target, half), i);
  }
  return sum;
}

__global__ void fill_with_indices(u64* words, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    words[i] = i;
  }
}

struct Dataflow {
  int chunk_rows;  // kTargets: "whole"
  bool discard;
  bool graph;
  bool last = false;    // the intermediate's lines under evict_last, the set-aside at its maximum
  bool window = false;  // each launch's access policy window on its chunk's rows, the set-aside at its maximum
};

// The most L2 the benchmarks' GPU (device 0, as L2Flush's) sets aside for persisting accesses.
std::size_t persisting_l2_max_bytes() { return fhe::query_gpus().gpus.at(0).persisting_l2_max_bytes; }

// The persisting L2 set-aside at its maximum while a "-last" or "-window"
// dataflow runs, back to none after (the default).
class PersistingL2 {
 public:
  explicit PersistingL2(bool on) : on_(on) {
    if (on_) FHE_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, persisting_l2_max_bytes()));
  }
  ~PersistingL2() {
    if (!on_) return;
    cudaCtxResetPersistingL2Cache();
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  }
  PersistingL2(const PersistingL2&) = delete;
  PersistingL2& operator=(const PersistingL2&) = delete;

 private:
  bool on_;
};

class ModUpFloor {
 public:
  ModUpFloor()
      : source_(kSources * kN), intermediate_(kDigits * kTargets * kN), key_(2 * kDigits * kTargets * kN),
        out_(2 * kTargets * kN) {
    for (auto* buffer : {&source_, &key_}) {
      fill_with_indices<<<1024, kThreads, 0, stream_.get()>>>(buffer->data(), buffer->size());
    }
    FHE_CUDA_CHECK(cudaGetLastError());
    stream_.synchronize();
  }

  // Whether every output word is the three steps' (sampled rows and words).
  bool outputs_right(const Dataflow& flow) {
    FHE_CUDA_CHECK(cudaMemsetAsync(out_.data(), 0, out_.bytes(), stream_.get()));
    launch(flow);
    stream_.synchronize();
    std::vector<u64> out(out_.size());
    FHE_CUDA_CHECK(cudaMemcpy(out.data(), out_.data(), out_.bytes(), cudaMemcpyDeviceToHost));
    for (int target = 0; target < kTargets; ++target) {
      for (int half = 0; half < 2; ++half) {
        for (std::size_t i = 0; i < kN; i += 4093) {
          if (out[row_word(half * kTargets + target, i)] != expected_output(target, half, i)) return false;
        }
      }
    }
    return true;
  }

  double time_ms(const Dataflow& flow) {
    flush_.run(stream_.get());
    start_.record(stream_.get());
    if (flow.graph) {
      FHE_CUDA_CHECK(cudaGraphLaunch(graph_for(flow), stream_.get()));
    } else {
      launch(flow);
    }
    stop_.record(stream_.get());
    stop_.synchronize();
    return stop_.elapsed_ms_since(start_);
  }

  ~ModUpFloor() {
    if (graph_) cudaGraphExecDestroy(graph_);
  }

 private:
  void launch(const Dataflow& flow) {
    const unsigned words_blocks = kN / kThreads, pair_blocks = kN / 4096;
    for (int first = 0; first < kTargets; first += flow.chunk_rows) {
      const int count = std::min(flow.chunk_rows, kTargets - first);
      const cudaAccessPolicyWindow window = flow.window ? window_of(first, count) : cudaAccessPolicyWindow{};
      const cudaAccessPolicyWindow* in_l2 = flow.window ? &window : nullptr;
      launch_in(in_l2, convert_floor, dim3(words_blocks, kDigits), source_.data(), intermediate_.data(), first, count,
                flow.last);
      launch_in(in_l2, pass_floor, dim3(pair_blocks, kDigits * count), intermediate_.data(), first, count, flow.last);
      launch_in(in_l2, key_floor, dim3(words_blocks, count), intermediate_.data(), key_.data(), out_.data(), first,
                flow.discard);
    }
  }

  // The access policy window over the intermediate rows of targets [first,
  // first + count): persisting hits, streaming misses, the hit ratio what
  // the set-aside holds of it.
  cudaAccessPolicyWindow window_of(int first, int count) {
    cudaAccessPolicyWindow window{};
    const std::size_t bytes = static_cast<std::size_t>(count) * kDigits * kN * sizeof(u64);
    window.base_ptr = intermediate_.data() + row_word(intermediate_row(0, first), 0);
    window.num_bytes = bytes;
    window.hitRatio = std::min(1.0f, static_cast<float>(set_aside_max_) / static_cast<float>(bytes));
    window.hitProp = cudaAccessPropertyPersisting;
    window.missProp = cudaAccessPropertyStreaming;
    return window;
  }

  // A launch on the stream, with the window as its attribute if there is
  // one (a captured launch keeps it on its graph node).
  template <typename... Params, typename... Args>
  void launch_in(const cudaAccessPolicyWindow* window, void (*kernel)(Params...), dim3 grid, Args... args) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeAccessPolicyWindow;
    if (window) attribute.val.accessPolicyWindow = *window;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(kThreads);
    config.stream = stream_.get();
    config.attrs = window ? &attribute : nullptr;
    config.numAttrs = window ? 1 : 0;
    FHE_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
  }

  // One graph at a time: the benchmarks of one dataflow run back to back.
  cudaGraphExec_t graph_for(const Dataflow& flow) {
    if (graph_ && graph_flow_.chunk_rows == flow.chunk_rows && graph_flow_.discard == flow.discard &&
        graph_flow_.last == flow.last && graph_flow_.window == flow.window) {
      return graph_;
    }
    if (graph_) FHE_CUDA_CHECK(cudaGraphExecDestroy(graph_));
    cudaGraph_t graph = nullptr;
    FHE_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeGlobal));
    launch(flow);
    FHE_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &graph));
    FHE_CUDA_CHECK(cudaGraphInstantiate(&graph_, graph, 0));
    FHE_CUDA_CHECK(cudaGraphDestroy(graph));
    graph_flow_ = flow;
    return graph_;
  }

  DeviceBuffer<u64> source_, intermediate_, key_, out_;
  std::size_t set_aside_max_ = persisting_l2_max_bytes();  // queried once: not in a timed launch
  fhe::cuda::Stream stream_;
  fhe::cuda::Event start_, stop_;
  fhelium_bench::L2Flush flush_;
  cudaGraphExec_t graph_ = nullptr;
  Dataflow graph_flow_{};
};

void bench_modup_floor(benchmark::State& state, Dataflow flow) {
  static std::unique_ptr<ModUpFloor> floor;
  if (!floor) floor = std::make_unique<ModUpFloor>();
  const PersistingL2 set_aside(flow.last || flow.window);
  if (!floor->outputs_right(flow)) {
    state.SkipWithError("the dataflow's outputs are not the three steps' words");
    return;
  }
  floor->time_ms(flow);  // warm-up (and the graph's instantiation)
  for (auto _ : state) state.SetIterationTime(floor->time_ms(flow) / 1e3);
  const int chunks = (kTargets + flow.chunk_rows - 1) / flow.chunk_rows;
  state.counters["chunks"] = chunks;
  state.counters["launches"] = 3 * chunks;
}

int register_modup_floor() {
  if (fhe::query_gpus().gpus.empty()) return 0;  // CPU-only machine: nothing to time
  const std::vector<std::pair<std::string, Dataflow>> flows = {
      {"whole", {kTargets, false, false}},   {"chunk3", {3, true, false}},  {"chunk4", {4, true, false}},
      {"chunk6", {6, true, false}},          {"chunk8", {8, true, false}},  {"chunk13", {13, true, false}},
      {"chunk4-keep", {4, false, false}},    {"chunk8-keep", {8, false, false}},
      {"whole-last", {kTargets, false, false, true}}, {"chunk3-last", {3, true, false, true}},
      {"chunk4-last", {4, true, false, true}},        {"chunk8-last", {8, true, false, true}},
      {"chunk4-window", {4, true, false, false, true}}, {"chunk8-window", {8, true, false, false, true}}};
  const auto add = [](const std::string& name, Dataflow flow, bool graph) {
    flow.graph = graph;
    const std::string full = "cuda_modup_floor/" + name + (graph ? "/graph" : "/eager");
    benchmark::RegisterBenchmark(full.c_str(), bench_modup_floor, flow)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(kIterations);
  };
  for (const bool graph : {false, true}) {
    for (const auto& [name, flow] : flows) add(name, flow, graph);
  }
  return 0;
}

const int registered = register_modup_floor();

}  // namespace
