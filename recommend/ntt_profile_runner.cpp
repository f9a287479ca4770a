// Profiling each backend and direction in turn. The source is decided once
// for the whole table: if ncu fails for any run, every row falls back to
// describe, so a table never mixes measured and static figures.
#include "recommend/ntt_profile_runner.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "recommend/child_process.h"
#include "recommend/copy_bandwidth.h"
#include "recommend/ntt_run_once.h"
#include "recommend/provenance.h"
#include "recommend/text_table.h"

namespace fhelium {
namespace {

constexpr const char* kProfileKind = "fhelium.ntt-profile";
constexpr int kProfileSchema = 1;
constexpr std::string_view kNcuNotFound =
    "ncu is neither on PATH nor in /usr/local/cuda/bin or /opt/nvidia/nsight-compute";

// Where ncu's files go when the caller keeps none: removed at the end.
class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path& keep) : keep_(!keep.empty()), path_(keep) {
    if (keep_) return;
    std::string pattern = (std::filesystem::temp_directory_path() / "fhelium-profile-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw fhe::DeviceError("cannot create a temporary directory for ncu's files");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!keep_) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  bool keep_;
  std::filesystem::path path_;
};

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// The first line holding `marker`, from the marker on; empty when none.
std::string line_with(const std::string& output, const std::string& marker) {
  const std::size_t at = output.find(marker);
  if (at == std::string::npos) return {};
  return trim(output.substr(at, output.find('\n', at) - at));
}

std::string last_line(const std::string& output) {
  std::string text = trim(output);
  const std::size_t at = text.rfind('\n');
  return at == std::string::npos ? text : trim(text.substr(at + 1));
}

// Why a run of ncu gave nothing usable, or empty when it did.
std::string run_failure(const ChildResult& run, const std::filesystem::path& ncu, const std::string& step) {
  if (!run.started) return "cannot execute " + ncu.string();
  // ncu reports missing permissions or libraries with ==ERROR== and may still
  // exit 0; when the profiled `fhelium` itself failed, its own line says why.
  if (const std::string error = line_with(run.output, "==ERROR=="); !error.empty()) {
    const std::string program = line_with(run.output, "fhelium: ");
    return step + ": " + error + (program.empty() ? "" : " (" + program + ")");
  }
  if (run.signal_number != 0) return step + ": ncu ended by signal " + std::to_string(run.signal_number);
  if (run.exit_code != 0) {
    const std::string tail = last_line(run.output);
    return step + ": ncu exited with status " + std::to_string(run.exit_code) + (tail.empty() ? "" : " (" + tail + ")");
  }
  return {};
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::vector<std::string> run_once_command(const std::filesystem::path& self, const NttProfileRequest& request,
                                          const std::string& backend, const std::string& direction) {
  return {self.string(), "ntt",      "run-once", "--backend", backend,
          "--preset",    request.preset, "--level", std::to_string(request.level),
          "--direction", direction,  "--device", request.device, "--seed", std::to_string(request.seed)};
}

}  // namespace

std::filesystem::path program_to_profile(const std::vector<std::string>& argv) {
  std::error_code error;
  if (!argv.empty() && argv[0].find('/') != std::string::npos && std::filesystem::is_regular_file(argv[0], error))
    return argv[0];
  return std::filesystem::read_symlink("/proc/self/exe");
}

void validate_profile_request(const NttProfileRequest& request) {
  if (request.backends.empty())
    throw fhe::InvalidArgument("profile needs at least one --backend");
  const fhe::Preset& preset = fhe::preset_by_name(request.preset);
  for (std::size_t i = 0; i < request.backends.size(); ++i) {
    compatible_backend(request.backends[i], preset);
    if (std::find(request.backends.begin(), request.backends.begin() + i, request.backends[i]) !=
        request.backends.begin() + i)
      throw fhe::InvalidArgument("backend " + request.backends[i] + " is given twice");
  }
  fhe::ntt::level_rows(preset, request.level);
  if (fhe::parse_device(request.device).kind != fhe::DeviceKind::cuda)
    throw fhe::InvalidArgument("profile runs on a CUDA device (--device cuda:N), not " + request.device);
}

std::filesystem::path locate_ncu() {
  if (auto on_path = find_on_path("ncu"); !on_path.empty()) return on_path;
  const std::filesystem::path toolkit = "/usr/local/cuda/bin/ncu";
  if (access(toolkit.c_str(), X_OK) == 0) return toolkit;
  // A standalone Nsight Compute install: the highest version directory.
  std::filesystem::path newest;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/opt/nvidia/nsight-compute", error)) {
    const auto candidate = entry.path() / "ncu";
    if (access(candidate.c_str(), X_OK) == 0 && (newest.empty() || candidate > newest)) newest = candidate;
  }
  return newest;
}

const std::vector<std::string>& ncu_profile_options() {
  static const std::vector<std::string> options = {"--profile-from-start", "off", "--clock-control", "none",
                                                   "--cache-control",      "all", "--replay-mode",   "kernel"};
  return options;
}

std::filesystem::path ncu_to_use() {
  const char* chosen = std::getenv("FHELIUM_NCU");
  return chosen && *chosen ? std::filesystem::path(chosen) : locate_ncu();
}

std::vector<DirectionProfile> select_profiles(const std::vector<ProfiledRun>& runs, const std::string& ncu_failure,
                                              double peak_gb_per_s, std::vector<std::string>& notes) {
  const bool measured = ncu_failure.empty();
  const std::string source = measured ? "ncu" : "describe (ncu unavailable: " + ncu_failure + ")";
  std::vector<DirectionProfile> out;
  for (const ProfiledRun& run : runs) {
    if (measured && !run.ncu.ok)
      throw std::logic_error("select_profiles: " + run.backend + " " + run.direction + " has no ncu counters");
    const auto& kernels = measured ? run.ncu.kernels : run.described;
    out.push_back(aggregate_profile(run.backend, run.direction, kernels, 1, measured, source,
                                    measured ? peak_gb_per_s : NAN));
    if (measured && run.ncu.kernels.size() != run.described.size())
      notes.push_back(run.backend + " " + run.direction + ": ncu profiled " + std::to_string(run.ncu.kernels.size()) +
                      " kernels, describe lists " + std::to_string(run.described.size()) + " launches");
  }
  return out;
}

NcuOutcome profile_under_ncu(const std::filesystem::path& ncu, const std::vector<std::string>& program,
                             const std::filesystem::path& files_base) {
  NcuOutcome out;
  const std::string report = files_base.string() + ".ncu-rep";
  out.command = {ncu.string()};
  out.command.insert(out.command.end(), ncu_profile_options().begin(), ncu_profile_options().end());
  out.command.insert(out.command.end(), {"--section", std::string(kNcuStallSection), "--metrics",
                                         join(ncu_profile_metrics(), ","), "--export", report, "--force-overwrite"});
  out.command.insert(out.command.end(), program.begin(), program.end());
  const ChildResult profiled = run_child(out.command, files_base.string() + ".log");
  if (out.failure = run_failure(profiled, ncu, "profiling"); !out.failure.empty()) return out;
  constexpr const char* kEmptyRange = "ncu profiled no kernel inside the cudaProfilerStart/Stop range";
  // Then there is no report to import: say so rather than that the import failed.
  if (profiled.output.find("No kernels were profiled") != std::string::npos) {
    out.failure = kEmptyRange;
    return out;
  }

  const ChildResult imported = run_child({ncu.string(), "--import", report, "--csv", "--page", "raw",
                                          "--print-units", "base"},
                                         files_base.string() + ".csv");
  if (out.failure = run_failure(imported, ncu, "reading the report"); !out.failure.empty()) return out;
  try {
    out.kernels = kernel_counters(parse_ncu_raw_page(imported.output));
  } catch (const NcuOutputError& e) {
    out.failure = std::string("ncu's CSV raw page could not be read: ") + e.what();
    return out;
  }
  if (out.kernels.empty()) {
    out.failure = kEmptyRange;
    return out;
  }
  out.ok = true;
  return out;
}

std::string ncu_version(const std::filesystem::path& ncu, const std::filesystem::path& log_file) {
  const ChildResult run = run_child({ncu.string(), "--version"}, log_file);
  const std::string line = run.started ? line_with(run.output, "Version") : std::string();
  return line.empty() ? "unknown" : line;
}

nlohmann::json profile_document(const ProfileRunFacts& facts) {
  const NttProfileRequest& request = facts.request;
  const fhe::Preset& preset = fhe::preset_by_name(request.preset);
  const fhe::ntt::RowRange rows = fhe::ntt::level_rows(preset, request.level);
  std::vector<std::string> notes;
  nlohmann::json profiles = nlohmann::json::array();
  for (const DirectionProfile& p : select_profiles(facts.runs, facts.ncu_failure, facts.peak_gb_per_s, notes)) {
    profiles.push_back(to_json(p));
    if (p.measured) profiles.back()["ncu_command"] = facts.runs[profiles.size() - 1].ncu.command;
  }
  nlohmann::json ncu = nullptr;
  if (!facts.ncu.empty()) {
    ncu = {{"path", facts.ncu.string()},
           {"version", facts.ncu_version},
           {"options", ncu_profile_options()},
           {"section", kNcuStallSection},
           {"metrics", ncu_profile_metrics()},
           {"stall_metrics", std::string(kNcuStallPrefix) + "<reason>" + std::string(kNcuStallSuffix)}};
  }
  return {{"kind", kProfileKind},
          {"schema_version", kProfileSchema},
          {"metadata",
           {{"preset", preset.name},
            {"level", request.level},
            {"device", fhe::parse_device(request.device).str()},
            {"log_n", preset.log_n},
            {"word", fhe::word_type_name(preset.word)},
            {"rows", {{"first", rows.first}, {"count", rows.count}}},
            {"backends", request.backends},
            {"seed", request.seed},
            {"transforms_per_profile", 1}}},
          {"source", profiles.empty() ? nlohmann::json("none") : profiles.front()["source"]},
          {"ncu", ncu},
          {"raw_dir", request.raw_dir.empty() ? nlohmann::json() : nlohmann::json(request.raw_dir.string())},
          {"dram_peak", facts.dram_peak},
          {"profiles", profiles},
          {"notes", notes},
          {"provenance", facts.provenance}};
}

nlohmann::json run_ntt_profile(const NttProfileRequest& request) {
  validate_profile_request(request);
  const fhe::Preset& preset = fhe::preset_by_name(request.preset);
  const fhe::ntt::RowRange rows = fhe::ntt::level_rows(preset, request.level);
  const fhe::DeviceSpec device = fhe::parse_device(request.device);
  fhe::require_device(device);

  ProfileRunFacts facts;
  facts.request = request;
  // The peak first, while nothing else of ours runs on the device.
  const CopyBandwidth peak = measure_copy_bandwidth(device);
  facts.dram_peak = to_json(peak);
  facts.peak_gb_per_s = peak.peak_gb_per_s;
  ScratchDir files(request.raw_dir);
  facts.ncu = ncu_to_use();
  if (!facts.ncu.empty()) facts.ncu_version = ncu_version(facts.ncu, files.path() / "ncu-version.log");
  const std::filesystem::path self = program_to_profile(request.argv);

  facts.ncu_failure = facts.ncu.empty() ? std::string(kNcuNotFound) : "";
  for (const std::string& backend : request.backends) {
    auto plan = fhe::ntt::make_plan(backend, device, preset.log_n, preset.qp_primes(), preset.word);
    for (const char* direction : {"forward", "inverse"}) {
      ProfiledRun run{backend, direction, kernel_counters(plan->describe(rows, std::string(direction) == "forward")),
                      {}};
      if (facts.ncu_failure.empty()) {  // after a failure, the table falls back: no more ncu runs
        run.ncu = profile_under_ncu(facts.ncu, run_once_command(self, request, backend, direction),
                                    files.path() / (backend + "-" + direction));
        if (!run.ncu.ok) facts.ncu_failure = backend + " " + direction + ": " + run.ncu.failure;
      }
      facts.runs.push_back(std::move(run));
    }
  }
  facts.provenance = collect_provenance(device, preset, request.argv);
  return profile_document(facts);
}

std::vector<DirectionProfile> profiles_of(const nlohmann::json& document) {
  if (!document.is_object() || document.value("kind", "") != kProfileKind)
    throw fhe::InvalidArgument(std::string("not a profile file (kind is not '") + kProfileKind + "')");
  if (!document.contains("profiles") || !document["profiles"].is_array())
    throw fhe::InvalidArgument("the profile file has no 'profiles' list");
  std::vector<DirectionProfile> out;
  for (const auto& entry : document["profiles"]) out.push_back(direction_profile_from_json(entry));
  return out;
}

void print_ntt_profile(std::ostream& out, const nlohmann::json& document) {
  const auto& m = document["metadata"];
  const nlohmann::json::json_pointer gpu_name("/provenance/device/name");
  const std::string gpu = document.contains(gpu_name) && document[gpu_name].is_string()
                              ? document[gpu_name].get<std::string>()
                              : "GPU not recorded";
  out << "profile: preset " << m["preset"].get<std::string>() << ", level " << m["level"].get<int>() << " ("
      << m["rows"]["count"].get<std::size_t>() << " rows x 2^" << m["log_n"].get<int>() << ", "
      << m["word"].get<std::string>() << "), device " << m["device"].get<std::string>() << " ("
      << gpu << "), each row one transform\n";
  const std::string source = document["source"].get<std::string>();
  if (source == "ncu") {
    out << "source: Nsight Compute, " << document["ncu"]["version"].get<std::string>() << ", "
        << join(document["ncu"]["options"].get<std::vector<std::string>>(), " ") << "\n";
  } else {
    out << "WARNING: NOT MEASURED. " << source
        << ". The rows below are NttPlan::describe's static figures (launches, registers, shared memory, "
           "occupancy-API blocks per SM, modelled DRAM bytes); durations, occupancy, sectors and stalls are n/a.\n";
  }
  out << "DRAM peak: " << format_number(document["dram_peak"]["peak_gb_per_s"].get<double>(), 0)
      << " GB/s (device-to-device cudaMemcpy of "
      << format_number(document["dram_peak"]["buffer_bytes"].get<double>() / (1 << 30), 2)
      << " GiB timed with CUDA events, read + write bytes, fastest of "
      << document["dram_peak"]["samples_ms"].size() << ")\n";
  TextTable table(profile_table_header());
  for (const DirectionProfile& p : profiles_of(document)) table.add_row(profile_table_row(p));
  table.print(out);
  for (const auto& note : document.value("notes", nlohmann::json::array()))
    out << "note: " << note.get<std::string>() << '\n';
}

}  // namespace fhelium
