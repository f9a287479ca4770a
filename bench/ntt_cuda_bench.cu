// CUDA NTT benchmarks (compiled when CUDA is built): forward and inverse of
// every compatible backend on the level-0 QP rows of the scale-40 presets
// (logN 14-17) and of slots32768-scale25-levels24-int32, and on one row at
// each logN. Samples replay CUDA graphs between two CUDA events (manual
// time). "cold": a kernel first reads a buffer twice the L2 size (outside
// the timed region; reads leave no dirty lines to write back), so data and
// twiddles come from DRAM, then one transform is timed. "warm" (default
// preset, both row counts): ten transforms back to back on the same buffer,
// time / 10, as a loop over one ciphertext would see. The transform works in
// place and its outputs are fully reduced, so every sample runs on reduced
// data. cuda_ntt_floor/ times the same data movement without arithmetic,
// and that of a row held in a thread-block cluster's distributed shared
// memory (below). Run with --benchmark_repetitions and read the median
// aggregate.
#include <benchmark/benchmark.h>
#include <cooperative_groups.h>

#include <memory>
#include <string>

#include "bench/l2_flush.cuh"
#include "fhe/core/device_info.h"
#include "fhe/cuda/device_buffer.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "fhe/params/preset.h"

namespace {

using fhe::cuda::DeviceBuffer;

constexpr int kWarmRepeats = 10;
constexpr int kIterationsPerRepetition = 100;

using fhelium_bench::L2Flush;

struct BenchCase {
  std::string preset;
  bool one_row;  // the preset's first row only
};

// One captured transform per direction on a plan's device data. Only one
// fixture lives at a time: benchmarks of one (backend, case) are registered
// next to each other, so memory stays bounded.
class Fixture {
 public:
  Fixture(const std::string& backend, const BenchCase& bench_case) {
    const fhe::Preset& preset = fhe::preset_by_name(bench_case.preset);
    const std::vector<std::uint64_t> moduli = preset.qp_primes();
    plan_ = fhe::ntt::make_plan(backend, {fhe::DeviceKind::cuda, 0}, preset.log_n, moduli, preset.word);
    rows_ = bench_case.one_row ? fhe::ntt::RowRange{0, 1} : fhe::ntt::level_rows(preset, 0);
    data_ = DeviceBuffer<std::uint64_t>::from_host(fhe::ntt::random_rows(*plan_, rows_, 42));
    forward_ = capture(true, 1);
    inverse_ = capture(false, 1);
    warm_forward_ = capture(true, kWarmRepeats);
    warm_inverse_ = capture(false, kWarmRepeats);
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
  ~Fixture() {
    for (cudaGraphExec_t exec : {forward_, inverse_, warm_forward_, warm_inverse_}) {
      cudaGraphExecDestroy(exec);
    }
  }

  std::string key;
  const fhe::ntt::NttPlan& plan() const { return *plan_; }
  fhe::ntt::RowRange rows() const { return rows_; }

  // Milliseconds of one transform on the device.
  // The flush kernel also keeps the GPU busy while the graph is submitted,
  // so the cold timing holds no launch gap.
  double time_ms(bool forward, bool cold) {
    if (cold) flush_.run(stream_.get());
    cudaGraphExec_t graph = cold ? (forward ? forward_ : inverse_)
                                 : (forward ? warm_forward_ : warm_inverse_);
    start_.record(stream_.get());
    FHE_CUDA_CHECK(cudaGraphLaunch(graph, stream_.get()));
    stop_.record(stream_.get());
    stop_.synchronize();
    return stop_.elapsed_ms_since(start_) / (cold ? 1 : kWarmRepeats);
  }

 private:
  cudaGraphExec_t capture(bool forward, int repeats) {
    cudaGraph_t graph = nullptr;
    FHE_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeGlobal));
    for (int i = 0; i < repeats; ++i) {
      if (forward) {
        plan_->forward(data_.data(), rows_, {stream_.get()});
      } else {
        plan_->inverse(data_.data(), rows_, {stream_.get()});
      }
    }
    FHE_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    FHE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    FHE_CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
  }

  std::unique_ptr<fhe::ntt::NttPlan> plan_;
  fhe::ntt::RowRange rows_;
  fhe::cuda::Stream stream_;
  fhe::cuda::Event start_, stop_;
  DeviceBuffer<std::uint64_t> data_;
  L2Flush flush_;
  cudaGraphExec_t forward_ = nullptr, inverse_ = nullptr;
  cudaGraphExec_t warm_forward_ = nullptr, warm_inverse_ = nullptr;
};

std::unique_ptr<Fixture> current;

Fixture& fixture_for(const std::string& backend, const BenchCase& bench_case) {
  const std::string key = backend + "/" + bench_case.preset + (bench_case.one_row ? "/1" : "/all");
  if (!current || current->key != key) {
    current.reset();  // free the previous case's device memory first
    current = std::make_unique<Fixture>(backend, bench_case);
    current->key = key;
  }
  return *current;
}

void bench_transform(benchmark::State& state, std::string backend, BenchCase bench_case,
                     bool forward, bool cold) {
  Fixture& f = fixture_for(backend, bench_case);
  f.time_ms(forward, cold);  // warm-up: module load, graph upload
  for (auto _ : state) state.SetIterationTime(f.time_ms(forward, cold) / 1e3);
  std::size_t modelled_bytes = 0;
  for (const auto& launch : f.plan().describe(f.rows(), forward)) {
    modelled_bytes += launch.modelled_dram_bytes;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * modelled_bytes));
  state.counters["rows"] = static_cast<double>(f.rows().count);
  state.counters["log_n"] = f.plan().log_n();
  state.counters["launches"] = static_cast<double>(f.plan().schedule().passes.size());
}

// The memory floor of the transforms' access patterns: rows of the
// default preset's N read and written in place with no arithmetic and no
// twiddles. "pass-stride12" and "pass-stride8" are the two 4-stage global
// passes at logN 16 (16 words a thread, 2^12 and 2^8 words apart); "tiles"
// the region's 256-word tiles (16 words a thread, 16 apart);
// "passes-and-tiles" the three back to back, the data movement of a
// group16 transform; "passes" the two global passes. "cluster8-passes" and
// "cluster16-passes" move the words of the two global passes in ONE
// launch: a cluster of 8 (16) blocks holds a row in distributed shared
// memory, each block loading the first pass's words of 1/8 of the columns
// and the cluster then reading the second pass's words from the blocks
// that hold them; one DRAM round trip instead of two. Timed like the
// transforms, cold and warm, on the 39 level-0 QP rows and on 390 (a
// level-0 ModUp's ten digits of QP rows, beyond the L2).

__global__ void __launch_bounds__(256) copy_in_place(std::uint64_t* data, int log_n, int stride_log) {
  const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  // Threads of one row: 2^(logN - 4). Inside a row, `stride_log` sets the
  // distance of a thread's 16 words: blocks of 2^(stride_log + 4) words.
  const std::size_t per_row_log = static_cast<std::size_t>(log_n - 4);
  const std::size_t row = thread >> per_row_log, item = thread & ((std::size_t{1} << per_row_log) - 1);
  const std::size_t block = item >> stride_log, offset = item & ((std::size_t{1} << stride_log) - 1);
  std::uint64_t* base = data + (row << log_n) + (block << (stride_log + 4)) + offset;
  std::uint64_t v[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) v[k] = base[static_cast<std::size_t>(k) << stride_log];
#pragma unroll
  for (int k = 0; k < 16; ++k) base[static_cast<std::size_t>(k) << stride_log] = v[k] ^ 1u;
}

// One row of 2^16 words per cluster of C blocks of 2^12 / C threads. Block b
// loads words k 2^12 + j (k < 16) of its columns j in [b T, (b + 1) T) into
// its shared memory at k T + (j - b T): the first pass's items. After the
// cluster barrier, thread t of block b takes the second pass's item (2^8
// apart) of words w = hi 2^12 + k 2^8 + o, hi = (b T + t) >> 8, o = t & 255:
// word k lies in block (k 2^8 + o) / T, in its slot hi T + (k 2^8 + o) mod T.
// The second barrier keeps every block's shared memory alive until the
// cluster has read it.
constexpr int kClusterRowLog = 16;

template <int C>
__global__ void cluster_passes_in_place(std::uint64_t* data) {
  constexpr int kThreads = (1 << 12) / C;
  extern __shared__ std::uint64_t held[];  // 16 x kThreads words
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const auto b = static_cast<int>(cluster.block_rank());
  const int t = static_cast<int>(threadIdx.x);
  std::uint64_t* row = data + (static_cast<std::size_t>(blockIdx.x / C) << kClusterRowLog);
#pragma unroll
  for (int k = 0; k < 16; ++k) held[k * kThreads + t] = row[(k << 12) + b * kThreads + t];
  cluster.sync();
  const int hi = (b * kThreads + t) >> 8, o = t & 255;
  std::uint64_t v[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const int j = (k << 8) + o;
    v[k] = cluster.map_shared_rank(held, j / kThreads)[hi * kThreads + j % kThreads];
  }
  cluster.sync();
#pragma unroll
  for (int k = 0; k < 16; ++k) row[(hi << 12) + (k << 8) + o] = v[k] ^ 1u;
}

template <int C>
void launch_cluster_passes(std::uint64_t* data, std::size_t rows, cudaStream_t stream) {
  constexpr int kThreads = (1 << 12) / C;
  constexpr int kShared = 16 * kThreads * 8;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(rows * C));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kShared;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = C;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  static const bool configured = [] {
    FHE_CUDA_CHECK(cudaFuncSetAttribute(cluster_passes_in_place<C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kShared));
    if (C > 8) {
      FHE_CUDA_CHECK(cudaFuncSetAttribute(cluster_passes_in_place<C>,
                                          cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    return true;
  }();
  (void)configured;
  FHE_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_passes_in_place<C>, data));
}

// A floor pattern: global passes of these strides, or (cluster > 0) the two
// global passes in one cluster launch.
struct FloorPattern {
  std::vector<int> stride_logs;
  int cluster = 0;
  int launches() const { return cluster > 0 ? 1 : static_cast<int>(stride_logs.size()); }
};

class FloorFixture {
 public:
  FloorFixture(const fhe::Preset& preset, std::size_t rows)
      : log_n_(preset.log_n), rows_(rows), data_(rows_ << log_n_) {
    FHE_CUDA_CHECK(cudaMemset(data_.data(), 3, data_.bytes()));
  }

  std::size_t rows() const { return rows_; }
  std::size_t bytes_moved(int launches) const { return 2 * data_.bytes() * static_cast<std::size_t>(launches); }

  // Whether the pattern's launches leave every word in its place (each
  // launch turns each word x into x ^ 1, however the words travel).
  bool moves_words_home(const FloorPattern& pattern) {
    std::vector<std::uint64_t> words(data_.size());
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = 2 * i;
    FHE_CUDA_CHECK(cudaMemcpy(data_.data(), words.data(), data_.bytes(), cudaMemcpyHostToDevice));
    FHE_CUDA_CHECK(cudaDeviceSynchronize());  // the non-blocking stream does not wait for the copy
    launch(pattern);
    stream_.synchronize();
    FHE_CUDA_CHECK(cudaMemcpy(words.data(), data_.data(), data_.bytes(), cudaMemcpyDeviceToHost));
    const auto flip = static_cast<std::uint64_t>(pattern.launches() % 2);
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] != (2 * i ^ flip)) return false;
    }
    return true;
  }

  double time_ms(const FloorPattern& pattern, bool cold) {
    if (cold) flush_.run(stream_.get());
    const int repeats = cold ? 1 : kWarmRepeats;
    start_.record(stream_.get());
    for (int i = 0; i < repeats; ++i) launch(pattern);
    stop_.record(stream_.get());
    stop_.synchronize();
    return stop_.elapsed_ms_since(start_) / repeats;
  }

 private:
  void launch(const FloorPattern& pattern) {
    const auto blocks = static_cast<unsigned>((rows_ << (log_n_ - 4)) / 256);
    if (pattern.cluster == 8) launch_cluster_passes<8>(data_.data(), rows_, stream_.get());
    if (pattern.cluster == 16) launch_cluster_passes<16>(data_.data(), rows_, stream_.get());
    for (const int stride_log : pattern.stride_logs) {
      copy_in_place<<<blocks, 256, 0, stream_.get()>>>(data_.data(), log_n_, stride_log);
    }
    FHE_CUDA_CHECK(cudaGetLastError());
  }

  int log_n_;
  std::size_t rows_;
  DeviceBuffer<std::uint64_t> data_;
  L2Flush flush_;
  fhe::cuda::Stream stream_;
  fhe::cuda::Event start_, stop_;
};

void bench_floor(benchmark::State& state, FloorPattern pattern, std::size_t rows, bool cold) {
  current.reset();  // the transforms' fixture's memory
  static std::unique_ptr<FloorFixture> fixture;
  if (!fixture || fixture->rows() != rows) {
    fixture.reset();
    fixture = std::make_unique<FloorFixture>(fhe::preset_by_name(fhe::kDefaultPresetName), rows);
  }
  if (!fixture->moves_words_home(pattern)) {
    state.SkipWithError("the pattern's launch does not put every word back in its place");
    return;
  }
  fixture->time_ms(pattern, cold);  // warm-up
  for (auto _ : state) state.SetIterationTime(fixture->time_ms(pattern, cold) / 1e3);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * fixture->bytes_moved(pattern.launches())));
  state.counters["rows"] = static_cast<double>(fixture->rows());
}

void register_floor() {
  const fhe::Preset& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const std::pair<const char*, FloorPattern> patterns[] = {
      {"pass-stride12", {{12}}}, {"pass-stride8", {{8}}},        {"tiles", {{4}}},
      {"passes-and-tiles", {{12, 8, 4}}}, {"passes", {{12, 8}}}, {"cluster8-passes", {{}, 8}},
      {"cluster16-passes", {{}, 16}}};
  for (const std::size_t rows : {preset.qp_rows(), 10 * preset.qp_rows()}) {
    const std::string rows_name = preset.name + "-rows" + std::to_string(rows);
    for (const auto& [name, pattern] : patterns) {
      const bool cluster = pattern.cluster > 0;
      if (cluster && preset.log_n != kClusterRowLog) continue;
      for (bool cold : {true, false}) {
        const std::string full = std::string("cuda_ntt_floor/") + name + "/" + rows_name + (cold ? "/cold" : "/warm");
        benchmark::RegisterBenchmark(full.c_str(), bench_floor, pattern, rows, cold)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond)
            ->Iterations(kIterationsPerRepetition);
      }
    }
  }
}

int register_all() {
  if (fhe::query_gpus().gpus.empty()) return 0;  // CPU-only machine: nothing to time
  std::vector<BenchCase> cases;
  for (const char* preset : {"slots8192-scale40-levels7-int64", "slots16384-scale40-levels16-int64",
                             fhe::kDefaultPresetName.data(), "slots65536-scale40-levels72-int64",
                             "slots32768-scale25-levels24-int32"}) {
    cases.push_back({preset, false});
  }
  for (const char* preset : {"slots8192-scale40-levels7-int64", "slots16384-scale40-levels16-int64",
                             fhe::kDefaultPresetName.data(), "slots65536-scale40-levels72-int64"}) {
    cases.push_back({preset, true});
  }
  for (const BenchCase& bench_case : cases) {
    const fhe::Preset& preset = fhe::preset_by_name(bench_case.preset);
    const bool warm_too = bench_case.preset == fhe::kDefaultPresetName;  // both row counts
    for (const auto& backend : fhe::ntt::all_backends()) {
      if (!fhe::ntt::compatibility(backend, preset.log_n).compatible) continue;
      for (bool cold : {true, false}) {
        if (!cold && !warm_too) continue;
        for (bool forward : {true, false}) {
          const std::string rows =
              bench_case.one_row ? "logN" + std::to_string(preset.log_n) + "-rows1"
                                 : preset.name + "-rows" + std::to_string(preset.qp_rows());
          const std::string name = std::string("cuda_ntt/") + (forward ? "forward/" : "inverse/") +
                                   std::string(backend.name) + "/" + rows + (cold ? "/cold" : "/warm");
          benchmark::RegisterBenchmark(name.c_str(), bench_transform, std::string(backend.name),
                                       bench_case, forward, cold)
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond)
              ->Iterations(kIterationsPerRepetition);
        }
      }
    }
  }
  register_floor();
  return 0;
}

const int registered = register_all();

}  // namespace
