// fhelium_bench's main: Google Benchmark's, except that a filter matching
// no benchmark is an error. Google Benchmark exits 0 then and writes an
// empty report, which an A/B (scripts/ab-bench) read as a run that found
// nothing to compare (session 70: a group16 filter over the CKKS benches,
// which time radix16 and group8 only).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const std::size_t matched = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (matched == 0) {
    std::fprintf(stderr,
                 "fhelium_bench: --benchmark_filter matched no benchmark (--benchmark_list_tests=true lists them)\n");
    return 1;
  }
  return 0;
}
