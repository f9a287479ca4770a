// Presence is decided by the GPU UUID the evidence recorded (an ordinal alone
// could name a different GPU on another host); CPU evidence is described on
// the host, whose passes carry no GPU resources.
#include "recommend/report_describe.h"

#include <algorithm>

#include "fhe/core/device_info.h"
#include "fhe/ntt/registry.h"
#include "fhe/ntt/schedule.h"
#include "fhe/params/preset.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

std::string dims(const unsigned (&d)[3], bool gpu) {
  return gpu ? std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]) : "-";
}

}  // namespace

DescribeContrast describe_contrast(const LoadedEvidence& evidence, const std::vector<std::string>& backends) {
  DescribeContrast out;
  const auto& metadata = evidence.document["metadata"];
  const std::string device_text = metadata.value("device", "cpu");
  fhe::DeviceSpec device;
  try {
    device = fhe::parse_device(device_text);
  } catch (const std::exception&) {
    out.note = "the evidence names device '" + device_text + "', which this build cannot parse";
    return out;
  }
  std::string unit_note;
  if (device.kind == fhe::DeviceKind::cuda) {
    const fhe::GpuInventory inventory = fhe::query_gpus();
    auto it = std::find_if(inventory.gpus.begin(), inventory.gpus.end(), [&](const fhe::GpuInfo& g) {
      return g.uuid == evidence.context.gpu_uuid;
    });
    // Launch shapes and resources follow the model and the build, not the
    // unit: another GPU of the same name is described, and named as such.
    if (it == inventory.gpus.end()) {
      it = std::find_if(inventory.gpus.begin(), inventory.gpus.end(),
                        [&](const fhe::GpuInfo& g) { return g.name == evidence.context.gpu_name; });
      if (it != inventory.gpus.end()) unit_note = "; same model, another unit (" + it->uuid + ")";
    }
    if (it == inventory.gpus.end()) {
      out.note = "not available: no GPU of the evidence's model (" + evidence.context.gpu_name + ", " +
                 evidence.context.gpu_uuid + ") is present where this report ran (" +
                 (inventory.gpus.empty() ? "no CUDA device" + std::string(inventory.status.empty() ? "" : ": " + inventory.status)
                                         : std::to_string(inventory.gpus.size()) + " other GPU(s)") +
                 "); run `fhelium report` on that machine, or `fhelium ntt describe --backend B` there";
      return out;
    }
    device.index = it->index;
  }
  try {
    const fhe::Preset& preset = fhe::preset_by_name(metadata.value("preset", ""));
    const fhe::ntt::RowRange rows = fhe::ntt::level_rows(preset, metadata.value("level", 0));
    out.header = {"backend", "direction", "kernel", "pass", "launches", "grid", "block", "regs/thread",
                  "smem static+dynamic B", "blocks/SM", "modelled MB"};
    const bool gpu = device.kind == fhe::DeviceKind::cuda;
    for (const std::string& backend : backends) {
      auto plan = fhe::ntt::make_plan(backend, device, preset.log_n, preset.qp_primes(), preset.word);
      for (bool forward : {true, false})
        for (const fhe::ntt::LaunchDescription& l : plan->describe(rows, forward))
          out.rows.push_back({backend, forward ? "forward" : "inverse", l.kernel,
                              std::string(fhe::ntt::pass_kind_name(l.pass_kind)),
                              std::to_string(l.launch_count), dims(l.grid, gpu), dims(l.block, gpu),
                              gpu ? std::to_string(l.registers_per_thread) : "-",
                              gpu ? std::to_string(l.static_shared_bytes) + "+" +
                                        std::to_string(l.dynamic_shared_bytes)
                                  : "-",
                              gpu ? std::to_string(l.max_blocks_per_sm) : "-",
                              format_number(l.modelled_dram_bytes / 1e6, 2)});
    }
    out.available = true;
    out.note = "described on " + device.str() + " (" + evidence.context.gpu_name + unit_note + "), preset " +
               preset.name + ", level " + std::to_string(metadata.value("level", 0)) + " (" +
               std::to_string(rows.count) + " rows)";
  } catch (const std::exception& e) {
    out = DescribeContrast{};
    out.note = std::string("not available: describing the plans failed: ") + e.what();
  }
  return out;
}

}  // namespace fhelium
