// `fhelium benchmark profile ntt`: one forward and one inverse transform of
// each backend profiled under Nsight Compute, or, where ncu is missing or
// cannot read the counters, the static NttPlan::describe figures, said so
// in every row. ncu runs this same binary's hidden `ntt run-once` command
// (ntt_run_once.h) with --profile-from-start off, so only the kernels of
// one transform are profiled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/params/preset.h"
#include "recommend/ntt_profile.h"

namespace fhelium {

struct NttProfileRequest {
  std::vector<std::string> backends;
  std::string preset = std::string(fhe::kDefaultPresetName);
  int level = 0;
  std::string device = "cuda:0";
  std::uint64_t seed = 1;          // of the random input words
  std::filesystem::path raw_dir;   // keeps ncu's reports, logs and CSV; empty: a temporary directory
  std::vector<std::string> argv;   // this command line, for the provenance
};

// Everything that needs no device: names, compatibility, level, a CUDA
// device spec, at least one backend and none twice. Throws InvalidArgument.
void validate_profile_request(const NttProfileRequest& request);

// ncu on PATH, else /usr/local/cuda/bin/ncu, else the newest
// /opt/nvidia/nsight-compute/<version>/ncu; empty when none exists.
std::filesystem::path locate_ncu();

// The ncu options every profile uses (besides --metrics and --section).
// --clock-control none keeps the GPU's own clocks (locking them is not
// allowed on shared machines); --cache-control all flushes caches before
// each kernel so every pass's DRAM traffic is its own.
const std::vector<std::string>& ncu_profile_options();

struct NcuOutcome {
  bool ok = false;
  std::string failure;  // one line: why there are no counters
  std::vector<KernelCounters> kernels;
  std::vector<std::string> command;  // the profiling command line
};

// Runs `program` under `ncu` (writing <files_base>.ncu-rep and .log), then
// `ncu --import` into the CSV raw page (<files_base>.csv) and reads it. Any
// "==ERROR==" line, non-zero exit, unreadable CSV or empty range is a
// failure with its reason (for example ERR_NVGPUCTRPERM).
NcuOutcome profile_under_ncu(const std::filesystem::path& ncu, const std::vector<std::string>& program,
                             const std::filesystem::path& files_base);

// ncu to use: $FHELIUM_NCU when set (a path; one that cannot run makes the
// profile fall back), else locate_ncu().
std::filesystem::path ncu_to_use();

// The binary ncu runs once per transform: this one as it was invoked when
// argv[0] is a path to a file from here (so the ncu command the profile
// records names no folder the invocation did not: scripts/suite-evidence
// runs build-gpu/recommend/fhelium), else /proc/self/exe.
std::filesystem::path program_to_profile(const std::vector<std::string>& argv);

// One backend and direction: its describe figures, and ncu's outcome when
// ncu was tried.
struct ProfiledRun {
  std::string backend, direction;
  std::vector<KernelCounters> described;
  NcuOutcome ncu;
};

// The table's rows, one per run. `ncu_failure` empty: every run's ncu
// counters; otherwise every row falls back to its describe figures, with
// source "describe (ncu unavailable: <ncu_failure>)", so a table never
// mixes measured and static rows. `notes` gets launch-count mismatches
// between ncu and describe.
std::vector<DirectionProfile> select_profiles(const std::vector<ProfiledRun>& runs, const std::string& ncu_failure,
                                              double peak_gb_per_s, std::vector<std::string>& notes);

// The "Version ..." line of `ncu --version`, or "unknown".
std::string ncu_version(const std::filesystem::path& ncu, const std::filesystem::path& log_file);

// What a profile run found, before it is written down.
struct ProfileRunFacts {
  NttProfileRequest request;
  nlohmann::json dram_peak;           // to_json(CopyBandwidth)
  double peak_gb_per_s = NAN;
  std::filesystem::path ncu;          // empty: not found
  std::string ncu_version;
  std::vector<ProfiledRun> runs;      // per backend, forward then inverse
  std::string ncu_failure;            // empty: every run measured
  nlohmann::json provenance;          // collect_provenance of the run
};

// The profile document (kind "fhelium.ntt-profile"): metadata, source, ncu,
// dram_peak, profiles (select_profiles), notes, provenance.
nlohmann::json profile_document(const ProfileRunFacts& facts);

// Runs the whole profile on the GPU and returns its document. Throws
// InvalidArgument / DeviceError for bad input or an absent device before
// any profiling.
nlohmann::json run_ntt_profile(const NttProfileRequest& request);

// The profiles of a document, in its order. Throws InvalidArgument when
// `document` is not a profile file.
std::vector<DirectionProfile> profiles_of(const nlohmann::json& document);

// The command line's text: context, source, peak bandwidth and the table.
void print_ntt_profile(std::ostream& out, const nlohmann::json& document);

}  // namespace fhelium
