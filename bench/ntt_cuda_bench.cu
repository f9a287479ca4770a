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
// data. Run with --benchmark_repetitions and read the median aggregate.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

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

// Reads every 16-byte word of `words` so the L2 holds nothing of the
// transform's data; the sink write never happens but keeps the reads alive.
__global__ void read_to_flush_l2(const uint4* words, std::size_t count, unsigned* sink) {
  unsigned mix = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 w = words[i];
    mix ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (mix == 0x9e3779b9u) *sink = mix;
}

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
    const fhe::GpuInventory inventory = fhe::query_gpus();
    flush_ = DeviceBuffer<uint4>(2 * inventory.gpus.at(0).l2_cache_bytes / sizeof(uint4));
    FHE_CUDA_CHECK(cudaMemset(flush_.data(), 1, flush_.bytes()));
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
    if (cold) {
      read_to_flush_l2<<<1024, 256, 0, stream_.get()>>>(flush_.data(), flush_.size(), sink_.data());
      FHE_CUDA_CHECK(cudaGetLastError());
    }
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
  DeviceBuffer<uint4> flush_;
  DeviceBuffer<unsigned> sink_{1};
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
  return 0;
}

const int registered = register_all();

}  // namespace
