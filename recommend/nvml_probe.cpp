// NVML through dlopen: a function table resolved once per process. The
// declarations below restate the few NVML C types the probe needs (NVML's
// ABI is stable); nvml.h is deliberately not required.
#include "recommend/nvml_probe.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

namespace fhelium {
namespace {

using NvmlReturn = int;  // nvmlReturn_t; 0 = success
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kClockGraphics = 0, kClockSm = 1, kClockMemory = 2;  // nvmlClockType_t

struct NvmlUtilization {
  unsigned int gpu_pct;
  unsigned int memory_pct;
};
struct NvmlMemory {
  unsigned long long total_bytes, free_bytes, used_bytes;
};
struct NvmlProcessV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory_bytes;
};
struct NvmlProcessV3 {
  unsigned int pid;
  unsigned long long used_gpu_memory_bytes;
  unsigned int gpu_instance_id, compute_instance_id;
};

struct NvmlApi {
  bool loaded = false;
  std::string status;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*handle_by_uuid)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*max_clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*application_clock)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*clock_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*power_limit)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*enforced_power_limit)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*processes_v3)(NvmlDevice, unsigned int*, NvmlProcessV3*) = nullptr;
  NvmlReturn (*processes_v1)(NvmlDevice, unsigned int*, NvmlProcessV1*) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned int) = nullptr;
};

template <typename F>
void resolve(void* library, const char* name, F& function) {
  function = reinterpret_cast<F>(dlsym(library, name));
}

// Loaded once and never unloaded: NVML keeps process-wide state.
const NvmlApi& nvml_api() {
  static NvmlApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* error = dlerror();
      api.status = std::string("unavailable: cannot load libnvidia-ml.so.1") +
                   (error ? std::string(" (") + error + ")" : "");
      return;
    }
    resolve(library, "nvmlInit_v2", api.init);
    resolve(library, "nvmlDeviceGetHandleByUUID", api.handle_by_uuid);
    resolve(library, "nvmlDeviceGetClockInfo", api.clock_info);
    resolve(library, "nvmlDeviceGetMaxClockInfo", api.max_clock_info);
    resolve(library, "nvmlDeviceGetApplicationsClock", api.application_clock);
    resolve(library, "nvmlDeviceGetCurrentClocksEventReasons", api.clock_reasons);
    if (api.clock_reasons == nullptr)  // the older name of the same query
      resolve(library, "nvmlDeviceGetCurrentClocksThrottleReasons", api.clock_reasons);
    resolve(library, "nvmlDeviceGetPowerManagementLimit", api.power_limit);
    resolve(library, "nvmlDeviceGetEnforcedPowerLimit", api.enforced_power_limit);
    resolve(library, "nvmlDeviceGetPowerUsage", api.power_usage);
    resolve(library, "nvmlDeviceGetTemperature", api.temperature);
    resolve(library, "nvmlDeviceGetUtilizationRates", api.utilization);
    resolve(library, "nvmlDeviceGetMemoryInfo", api.memory);
    resolve(library, "nvmlDeviceGetComputeRunningProcesses_v3", api.processes_v3);
    resolve(library, "nvmlDeviceGetComputeRunningProcesses", api.processes_v1);
    resolve(library, "nvmlSystemGetDriverVersion", api.driver_version);
    if (api.init == nullptr || api.handle_by_uuid == nullptr || api.clock_info == nullptr) {
      api.status = "unavailable: libnvidia-ml.so.1 lacks nvmlInit_v2/GetHandleByUUID/GetClockInfo";
      return;
    }
    const NvmlReturn status = api.init();
    if (status != kNvmlSuccess) {
      api.status = "unavailable: nvmlInit_v2 returned " + std::to_string(status);
      return;
    }
    api.loaded = true;
    api.status = "nvml";
  });
  return api;
}

std::optional<unsigned int> query(NvmlReturn (*f)(NvmlDevice, int, unsigned int*), NvmlDevice d,
                                  int kind) {
  unsigned int value = 0;
  if (f != nullptr && f(d, kind, &value) == kNvmlSuccess) return value;
  return std::nullopt;
}

std::optional<unsigned int> query(NvmlReturn (*f)(NvmlDevice, unsigned int*), NvmlDevice d) {
  unsigned int value = 0;
  if (f != nullptr && f(d, &value) == kNvmlSuccess) return value;
  return std::nullopt;
}

template <typename T>
void put(nlohmann::json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

}  // namespace

NvmlProbe::NvmlProbe(const std::string& gpu_uuid) {
  const NvmlApi& api = nvml_api();
  if (!api.loaded) {
    status_ = api.status;
    return;
  }
  NvmlDevice device = nullptr;
  const NvmlReturn status = api.handle_by_uuid(gpu_uuid.c_str(), &device);
  if (status != kNvmlSuccess) {
    status_ = "unavailable: NVML has no device " + gpu_uuid + " (error " + std::to_string(status) + ")";
    return;
  }
  device_ = device;
  status_ = "nvml";
}

NvmlProbe::~NvmlProbe() = default;

std::optional<ClockSample> NvmlProbe::sample() const {
  if (!available()) return std::nullopt;
  const NvmlApi& api = nvml_api();
  const auto clock = query(api.clock_info, device_, kClockSm);
  if (!clock) return std::nullopt;
  ClockSample sample;
  sample.sm_clock_mhz = *clock;
  unsigned long long reasons = 0;
  if (api.clock_reasons != nullptr && api.clock_reasons(device_, &reasons) == kNvmlSuccess)
    sample.throttle_reasons = reasons;
  return sample;
}

nlohmann::json NvmlProbe::device_facts() const {
  nlohmann::json facts = nlohmann::json::object();
  if (!available()) return facts;
  const NvmlApi& api = nvml_api();
  put(facts, "sm_clock_mhz", query(api.clock_info, device_, kClockSm));
  put(facts, "graphics_clock_mhz", query(api.clock_info, device_, kClockGraphics));
  put(facts, "memory_clock_mhz", query(api.clock_info, device_, kClockMemory));
  put(facts, "max_sm_clock_mhz", query(api.max_clock_info, device_, kClockSm));
  put(facts, "max_memory_clock_mhz", query(api.max_clock_info, device_, kClockMemory));
  put(facts, "application_sm_clock_mhz", query(api.application_clock, device_, kClockSm));
  put(facts, "application_memory_clock_mhz", query(api.application_clock, device_, kClockMemory));
  put(facts, "power_limit_mw", query(api.power_limit, device_));
  put(facts, "enforced_power_limit_mw", query(api.enforced_power_limit, device_));
  put(facts, "power_draw_mw", query(api.power_usage, device_));
  put(facts, "temperature_c", query(api.temperature, device_, 0));
  char version[96] = {};
  if (api.driver_version != nullptr && api.driver_version(version, sizeof version) == kNvmlSuccess)
    facts["driver_version"] = version;
  return facts;
}

nlohmann::json NvmlProbe::activity(long own_pid) const {
  nlohmann::json out = {{"source", status_}};
  if (!available()) return out;
  const NvmlApi& api = nvml_api();
  NvmlUtilization utilization{};
  if (api.utilization != nullptr && api.utilization(device_, &utilization) == kNvmlSuccess) {
    out["gpu_utilization_pct"] = utilization.gpu_pct;
    out["memory_utilization_pct"] = utilization.memory_pct;
  }
  NvmlMemory memory{};
  if (api.memory != nullptr && api.memory(device_, &memory) == kNvmlSuccess)
    out["memory_used_bytes"] = memory.used_bytes;
  put(out, "sm_clock_mhz", query(api.clock_info, device_, kClockSm));
  put(out, "temperature_c", query(api.temperature, device_, 0));

  // A small list first, a large one if NVML says it did not fit.
  nlohmann::json processes = nlohmann::json::array();
  bool listed = false;
  auto record = [&](unsigned int pid, unsigned long long bytes) {
    processes.push_back({{"pid", pid}, {"used_gpu_memory_bytes", bytes},
                         {"is_this_process", static_cast<long>(pid) == own_pid}});
  };
  for (int attempt = 0; attempt < 2 && !listed; ++attempt) {
    unsigned int count = attempt == 0 ? 64 : 4096;
    if (api.processes_v3 != nullptr) {
      std::vector<NvmlProcessV3> list(count);
      if (api.processes_v3(device_, &count, list.data()) == kNvmlSuccess) {
        for (unsigned int i = 0; i < count; ++i) record(list[i].pid, list[i].used_gpu_memory_bytes);
        listed = true;
      }
    } else if (api.processes_v1 != nullptr) {
      std::vector<NvmlProcessV1> list(count);
      if (api.processes_v1(device_, &count, list.data()) == kNvmlSuccess) {
        for (unsigned int i = 0; i < count; ++i) record(list[i].pid, list[i].used_gpu_memory_bytes);
        listed = true;
      }
    }
  }
  if (listed) {
    out["compute_processes"] = processes;
    std::size_t others = 0;
    for (const auto& p : processes) others += p["is_this_process"].get<bool>() ? 0 : 1;
    out["other_compute_processes"] = others;
  }
  return out;
}

}  // namespace fhelium
