// A CUDA injection library that records when every kernel of a process
// ran on the GPU, as the GPU's clock saw it: start and end of each launch
// with the launches of a stream, a graph or programmatic dependent launch
// left to overlap as they do (CUPTI's concurrent-kernel activity, no
// serialisation). Nsight Compute times a kernel alone; this shows what a
// chain of launches spends between and across them in the benches' own runs.
//
//   FHELIUM_TIMELINE_CSV=out.csv
//   CUDA_INJECTION64_PATH=build/bench/libfhelium_kernel_timeline.so
//   build/bench/fhelium_bench --benchmark_filter=...   (with both set)
//
// The driver loads the library at cuInit and calls InitializeInjection. The
// CSV (scripts/kernel-timeline reads it) is written to OUT.tmp and renamed
// when the process exits, so an interrupted run leaves no half file under
// the name asked for.
#include <cuda.h>
#include <cupti.h>
#include <cxxabi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct KernelRun {
  std::uint64_t start, end;
  std::uint32_t device, stream, graph;
  std::uint64_t graph_node;
  std::int64_t grid, block;
  std::uint32_t registers, dynamic_shared;
  std::string name;
};

struct Recorder {
  std::string path;
  std::mutex mutex;
  std::vector<KernelRun> runs;
};

Recorder* recorder = nullptr;

constexpr std::size_t kBufferBytes = 8u << 20;

std::string demangled(const char* name) {
  if (name == nullptr) return "?";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> plain(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && plain ? std::string(plain.get()) : std::string(name);
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  std::vector<KernelRun> runs;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    runs.push_back({k->start, k->end, k->deviceId, k->streamId, k->graphId, k->graphNodeId,
                    std::int64_t{k->gridX} * k->gridY * k->gridZ, std::int64_t{k->blockX} * k->blockY * k->blockZ,
                    k->registersPerThread, static_cast<std::uint32_t>(k->dynamicSharedMemory), demangled(k->name)});
  }
  std::free(buffer);
  std::lock_guard lock(recorder->mutex);
  recorder->runs.insert(recorder->runs.end(), runs.begin(), runs.end());
}

std::string csv_quoted(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void write_at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(recorder->mutex);
  const std::string partial = recorder->path + ".tmp";
  std::FILE* out = std::fopen(partial.c_str(), "w");
  if (out == nullptr) {
    std::fprintf(stderr, "kernel timeline: cannot write %s\n", partial.c_str());
    return;
  }
  std::fprintf(out, "start_ns,end_ns,device,stream,graph,graph_node,grid,block,registers,dynamic_shared,name\n");
  for (const KernelRun& r : recorder->runs) {
    std::fprintf(out, "%llu,%llu,%u,%u,%u,%llu,%lld,%lld,%u,%u,%s\n", static_cast<unsigned long long>(r.start),
                 static_cast<unsigned long long>(r.end), r.device, r.stream, r.graph,
                 static_cast<unsigned long long>(r.graph_node), static_cast<long long>(r.grid),
                 static_cast<long long>(r.block), r.registers, r.dynamic_shared, csv_quoted(r.name).c_str());
  }
  const bool written = std::fclose(out) == 0 && std::rename(partial.c_str(), recorder->path.c_str()) == 0;
  if (!written) {
    std::remove(partial.c_str());
    std::fprintf(stderr, "kernel timeline: cannot write %s\n", recorder->path.c_str());
    return;
  }
  std::fprintf(stderr, "kernel timeline: %zu launches in %s\n", recorder->runs.size(), recorder->path.c_str());
}

}  // namespace

// Returns 0 (the driver then goes on without it) when FHELIUM_TIMELINE_CSV
// is unset or unwritable or CUPTI refuses, and says which on stderr.
extern "C" int InitializeInjection() {
  const char* path = std::getenv("FHELIUM_TIMELINE_CSV");
  if (path == nullptr || *path == '\0') {
    std::fprintf(stderr, "kernel timeline: set FHELIUM_TIMELINE_CSV to the CSV to write\n");
    return 0;
  }
  const std::string partial = std::string(path) + ".tmp";
  std::FILE* probe = std::fopen(partial.c_str(), "w");
  if (probe == nullptr) {
    std::fprintf(stderr, "kernel timeline: cannot write %s\n", partial.c_str());
    return 0;
  }
  std::fclose(probe);
  std::remove(partial.c_str());
  recorder = new Recorder{path, {}, {}};
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "kernel timeline: CUPTI refused the kernel activity\n");
    return 0;
  }
  std::atexit(write_at_exit);
  return 1;
}
