// The kernel suite: forward_ntt, inverse_ntt (with the N^-1 scaling) and
// roundtrip over all active rows of one level (level 0: every QP row), each
// backend's plan built once. Correctness gate: bit-exact against the
// radix2_indexed CPU oracle, plus the candidate's own roundtrip.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string_view>

#include "fhe/ntt/backend.h"
#include "fhe/params/preset.h"
#include "recommend/sample_timer.h"
#include "recommend/suite.h"
#include "recommend/transform_buffers.h"

namespace fhelium {

// Builds a backend's plan; fhe::ntt::make_plan in production. Tests pass a
// wrapper (for example one that corrupts a word) to exercise the gate.
using PlanFactory = std::function<std::unique_ptr<fhe::ntt::NttPlan>(
    std::string_view backend, const fhe::DeviceSpec& device, int log_n,
    std::span<const std::uint64_t> moduli, fhe::WordType word)>;

PlanFactory registry_plan_factory();

class KernelSuite : public Suite {
 public:
  KernelSuite(const fhe::Preset& preset, const fhe::DeviceSpec& device, int level,
              std::uint64_t seed, PlanFactory factory = registry_plan_factory());
  ~KernelSuite() override;

  std::string_view name() const override { return "kernel"; }
  const std::vector<std::string>& operations() const override;
  TimedBoundary timed_boundary() const override;
  void prepare(const std::string& backend) override;
  CorrectnessRecord check_correctness(const std::string& backend) override;
  void restore_input(const std::string& backend, std::size_t operation) override;
  double time_once(const std::string& backend, std::size_t operation) override;

 private:
  const fhe::ntt::NttPlan& plan(const std::string& backend) const;
  nlohmann::json failing_input(const fhe::ntt::NttPlan& candidate, const nlohmann::json& checks) const;

  const fhe::Preset& preset_;
  fhe::DeviceSpec device_;
  int level_;
  std::uint64_t seed_;
  PlanFactory factory_;
  fhe::ntt::RowRange rows_;
  std::vector<std::uint64_t> moduli_;
  std::unique_ptr<fhe::ntt::NttPlan> oracle_;
  std::vector<std::uint64_t> input_;  // rows_.count x N random words, from seed_
  std::unique_ptr<TransformBuffers> buffers_;
  SampleTimer timer_;
  std::map<std::string, std::unique_ptr<fhe::ntt::NttPlan>> plans_;
};

}  // namespace fhelium
