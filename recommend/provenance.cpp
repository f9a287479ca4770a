// Provenance collection.
#include "recommend/provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "fhe/core/build_info.h"
#include "fhe/core/device_info.h"
#include "recommend/nvml_probe.h"

namespace fhelium {
namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

nlohmann::json load_average() {
  double loads[3] = {0, 0, 0};
  if (getloadavg(loads, 3) != 3) return nullptr;
  return {{"1m", loads[0]}, {"5m", loads[1]}, {"15m", loads[2]}};
}

const fhe::GpuInfo* find_gpu(const fhe::GpuInventory& inventory, const fhe::DeviceSpec& device) {
  if (device.kind != fhe::DeviceKind::cuda) return nullptr;
  for (const fhe::GpuInfo& gpu : inventory.gpus)
    if (gpu.index == device.index) return &gpu;
  return nullptr;
}

}  // namespace

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

nlohmann::json collect_provenance(const fhe::DeviceSpec& device, const fhe::Preset& preset,
                                  const std::vector<std::string>& argv) {
  const fhe::BuildInfo& build = fhe::build_info();
  const fhe::GpuInventory inventory = fhe::query_gpus();
  nlohmann::json out;
  out["time_utc"] = utc_now_iso8601();
  out["argv"] = argv;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname system{};
  uname(&system);
  out["host"] = {{"hostname", host},
                 {"os", std::string(system.sysname) + " " + system.release},
                 {"machine", system.machine},
                 {"cpu_model", cpu_model()},
                 {"logical_cpus", std::thread::hardware_concurrency()},
                 {"pid", static_cast<long>(getpid())}};
  out["build"] = {{"version", build.version},
                  {"git_commit", build.git_commit},
                  {"git_dirty", build.git_dirty},
                  {"build_type", build.build_type},
                  {"cxx_compiler", build.cxx_compiler},
                  {"cxx_flags", build.cxx_flags},
                  {"cuda_built", build.cuda_built},
                  {"cuda_toolkit_compiler", build.cuda_compiler},
                  {"cuda_architectures", build.cuda_architectures},
                  {"cuda_flags", build.cuda_flags}};
  out["cuda"] = {{"runtime_version", inventory.runtime_version},
                 {"driver_cuda_version", inventory.driver_version},
                 {"status", inventory.status}};
  out["preset"] = {{"name", preset.name},
                   {"log_n", preset.log_n},
                   {"scale_bits", preset.scale_bits},
                   {"levels", preset.levels},
                   {"q_rows", preset.q_primes.size()},
                   {"p_rows", preset.p_primes.size()},
                   {"word", fhe::word_type_name(preset.word)},
                   {"test_only", preset.test_only},
                   {"primes_hash", fhe::preset_primes_hash(preset)}};
  out["device"] = {{"spec", device.str()}};
  if (const fhe::GpuInfo* gpu = find_gpu(inventory, device)) {
    NvmlProbe probe(gpu->uuid);
    out["device"] = {{"spec", device.str()},
                     {"name", gpu->name},
                     {"uuid", gpu->uuid},
                     {"compute_capability", std::to_string(gpu->compute_major) + "." +
                                                std::to_string(gpu->compute_minor)},
                     {"sm_count", gpu->sm_count},
                     {"total_memory_bytes", gpu->total_memory_bytes},
                     {"l2_cache_bytes", gpu->l2_cache_bytes},
                     {"nvml_status", probe.status()},
                     {"nvml", probe.device_facts()}};
  }
  return out;
}

nlohmann::json activity_snapshot(const fhe::DeviceSpec& device) {
  nlohmann::json out = {{"time_utc", utc_now_iso8601()}, {"load_average", load_average()}};
  if (device.kind == fhe::DeviceKind::cuda) {
    const fhe::GpuInventory inventory = fhe::query_gpus();
    if (const fhe::GpuInfo* gpu = find_gpu(inventory, device)) {
      out["gpu"] = NvmlProbe(gpu->uuid).activity(static_cast<long>(getpid()));
    }
  }
  return out;
}

}  // namespace fhelium
