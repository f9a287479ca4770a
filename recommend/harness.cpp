// The timing loop.
#include "recommend/harness.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "recommend/l2_flush.h"
#include "recommend/nvml_probe.h"
#include "recommend/sample_timer.h"
#include "recommend/throttle.h"

namespace fhelium {

std::vector<std::string> rotated_order(const std::vector<std::string>& backends, int repetition) {
  std::vector<std::string> order = backends;
  if (!order.empty()) {
    const auto shift = static_cast<std::ptrdiff_t>(repetition % static_cast<int>(order.size()));
    std::rotate(order.begin(), order.begin() + shift, order.end());
  }
  return order;
}

void validate_harness_counts(int warmup, int runs, int repetitions) {
  if (warmup < 0) throw fhe::InvalidArgument("--warmup must be >= 0, got " + std::to_string(warmup));
  if (runs < 1) throw fhe::InvalidArgument("--runs must be >= 1, got " + std::to_string(runs));
  if (repetitions < 1)
    throw fhe::InvalidArgument("--repetitions must be >= 1, got " + std::to_string(repetitions));
}

HarnessResult run_harness(Suite& suite, const std::vector<std::string>& backends,
                          const HarnessOptions& options) {
  validate_harness_counts(options.warmup, options.runs, options.repetitions);
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  HarnessResult result;
  result.timer = SampleTimer::method_for(options.device);

  // Device-side helpers: the L2 flush buffer and the NVML clock probe.
  std::size_t l2_bytes = 0;
  std::unique_ptr<NvmlProbe> probe;
  if (options.device.kind == fhe::DeviceKind::cuda) {
    const fhe::GpuInventory inventory = fhe::query_gpus();
    const auto gpu = std::find_if(inventory.gpus.begin(), inventory.gpus.end(),
                                  [&](const fhe::GpuInfo& g) { return g.index == options.device.index; });
    if (gpu == inventory.gpus.end())
      throw fhe::DeviceError("device " + options.device.str() + " is not available");
    l2_bytes = gpu->l2_cache_bytes;
    probe = std::make_unique<NvmlProbe>(gpu->uuid);
    result.clock_probe = probe->status();
    if (!probe->available()) probe.reset();
  } else {
    result.clock_probe = "not applicable (cpu)";
  }
  L2Flusher flusher(options.device, options.l2_flush, l2_bytes);
  result.l2_flush = flusher.describe();

  // Build once, then gate: a failing backend is recorded and never timed.
  for (const std::string& backend : backends) {
    say("preparing " + backend);
    suite.prepare(backend);
    say("checking " + backend);
    CorrectnessRecord record = suite.check_correctness(backend);
    if (record.passed) result.ranked_backends.push_back(backend);
    result.correctness.push_back(std::move(record));
  }

  const std::vector<std::string>& ops = suite.operations();
  for (int rep = 0; rep < options.repetitions; ++rep) {
    const std::vector<std::string> order = rotated_order(result.ranked_backends, rep);
    result.measurement_orders.push_back(order);
    for (const std::string& backend : order) {
      for (std::size_t op = 0; op < ops.size(); ++op) {
        say("repetition " + std::to_string(rep + 1) + "/" + std::to_string(options.repetitions) +
            ": " + backend + " " + ops[op]);
        for (int i = 0; i < options.warmup; ++i) {
          suite.restore_input(backend, op);
          suite.time_once(backend, op);
        }
        SampleSeries series{backend, ops[op], rep, {}, {}, {}, {}};
        bool reasons_known = probe != nullptr;
        for (int i = 0; i < options.runs; ++i) {
          suite.restore_input(backend, op);
          flusher.flush();
          series.samples_ms.push_back(suite.time_once(backend, op));
          if (!probe) continue;
          const std::optional<ClockSample> clock = probe->sample();
          // NaN (null in JSON) marks a failed probe: unknown, not throttled.
          series.sm_clock_mhz.push_back(clock ? clock->sm_clock_mhz : std::nan(""));
          reasons_known = reasons_known && clock && clock->throttle_reasons;
          series.throttle_reasons.push_back(clock && clock->throttle_reasons ? *clock->throttle_reasons : 0);
        }
        if (!reasons_known) series.throttle_reasons.clear();
        result.series.push_back(std::move(series));
      }
    }
  }
  result.max_sm_clock_mhz = flag_throttled_samples(result.series);
  return result;
}

}  // namespace fhelium
