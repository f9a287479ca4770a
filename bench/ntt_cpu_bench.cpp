// CPU NTT benchmarks: one 60-bit row at N=32768 (the SEAL comparison of
// docs/performance.md) and the level-0 rows of small presets, per backend.
#include <benchmark/benchmark.h>

#include "fhe/arith/primes.h"
#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"

namespace {

void bench_transform(benchmark::State& state, std::string backend, int log_n, int rows, int bits,
                     bool forward) {
  const auto moduli = fhe::largest_ntt_primes(bits, rows, std::uint64_t{2} << log_n, {});
  const auto word = bits > 30 ? fhe::WordType::int64 : fhe::WordType::int32;
  auto plan = fhe::ntt::make_plan(backend, {}, log_n, moduli, word);
  auto data = fhe::ntt::random_rows(*plan, plan->all_rows(), 1);
  for (auto _ : state) {
    // Forward then inverse keeps the data reduced and bounded across iterations.
    if (forward) {
      plan->forward(data.data(), plan->all_rows());
    } else {
      plan->inverse(data.data(), plan->all_rows());
    }
    benchmark::DoNotOptimize(data.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows);
}

int register_all() {
  for (const auto& b : fhe::ntt::all_backends()) {
    for (int log_n : {15, 16}) {
      if (!fhe::ntt::compatibility(b, log_n).compatible) continue;
      for (bool forward : {true, false}) {
        const std::string name = std::string("cpu_ntt/") + (forward ? "forward/" : "inverse/") +
                                 std::string(b.name) + "/logN" + std::to_string(log_n) + "/rows1/bits60";
        benchmark::RegisterBenchmark(name.c_str(), bench_transform, std::string(b.name), log_n, 1,
                                     60, forward)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  return 0;
}

const int registered = register_all();

}  // namespace
