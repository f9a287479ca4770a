// The options of `fhelium benchmark recommend ntt` and their resolution into
// a validated plan. Everything the run needs is checked here, before any
// timing: names, device, level, backends, counts, the application workload
// and its memory plan, weights, policy, output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fhe/core/device.h"
#include "fhe/params/preset.h"
#include "recommend/application_request.h"
#include "recommend/decision.h"
#include "recommend/weights.h"

namespace fhelium {

struct RecommendOptions {
  std::string suite = "kernel";
  std::string preset = std::string(fhe::kDefaultPresetName);
  std::string device;  // empty: cuda:0 when a GPU is present, else cpu
  std::vector<std::string> backends;  // empty: the suite's default set
  int warmup = 3;
  int runs = 10;
  int repetitions = 3;
  std::optional<std::uint64_t> seed;  // empty: drawn at random and recorded
  int level = 0;
  std::string weights;  // "op=w,..."; empty: equal weights
  std::string policy = "documented";
  std::string l2_flush = "off";
  std::string output;  // empty: ntt-recommendation-<suite>[-<workload>].json here
  ApplicationOptions application;  // --workload and its options (application suite only)
};

struct RejectedBackend {
  std::string backend;
  std::string reason;
};

struct RecommendPlan {
  std::string suite;
  const fhe::Preset* preset = nullptr;
  fhe::DeviceSpec device;
  std::vector<std::string> backends;      // unique, compatible, in list order
  std::vector<RejectedBackend> rejected;  // explicit names that are incompatible
  std::vector<std::string> operations;   // what the suite will time, known before it is built
  std::optional<ApplicationPlan> application;  // the application suite only
  int warmup = 0, runs = 0, repetitions = 0, level = 0;
  std::uint64_t seed = 0;
  std::string weights_text;
  OperationWeights weights;
  Policy policy = Policy::documented;
  bool l2_flush = false;
  std::filesystem::path output;
};

// Throws InvalidArgument (or DeviceError for an absent device) with one
// clear line; never touches the file system beyond checking the output.
RecommendPlan resolve_request(const RecommendOptions& options);

// "<output stem>.failing-<backend>.json" beside the output.
std::filesystem::path failing_input_path(const std::filesystem::path& output,
                                         const std::string& backend);

}  // namespace fhelium
