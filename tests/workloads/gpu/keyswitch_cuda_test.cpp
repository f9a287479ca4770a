// CudaKeySwitchWorkload on a small test preset (logN 12, every backend
// compatible): for every backend, each key switch at two levels gives the
// CPU KeySwitchWorkload's words for the same engine seed, eagerly and as a
// graph replay; replays of interleaved operations keep each output's shape;
// a plan that does not fit is refused before allocation; a CPU engine or
// missing keys are refused.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "fhe/core/error.h"
#include "fhe/ntt/registry.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "workloads/keyswitch/cuda_keyswitch_workload.h"
#include "workloads/keyswitch/keyswitch_workload.h"

namespace fhe::workloads {
namespace {

using fhe::testing::same_words;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";
constexpr std::uint64_t kSeed = 23;
const std::vector<int> kLevels = {0, 4};
constexpr int kStep = -5;

std::unique_ptr<CkksEngine> make_engine(const std::string& device, const std::string& backend) {
  auto engine =
      std::make_unique<CkksEngine>(kPreset, EngineOptions{.device = device, .ntt_backend = backend, .seed = kSeed});
  engine->generate_keys({kStep});
  return engine;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const ntt::BackendInfo& backend : ntt::all_backends()) names.emplace_back(backend.name);
  return names;
}

class CudaKeySwitchBackends : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaKeySwitchBackends, EagerAndGraphEqualCpuWordsAtTwoLevels) {
  FHE_SKIP_WITHOUT_GPU();
  // Two engines, one seed, the same call sequence: the same keys and inputs.
  const auto cpu_engine = make_engine("cpu", GetParam());
  const auto gpu_engine = make_engine("cuda:0", GetParam());
  const KeySwitchWorkload cpu(*cpu_engine, kLevels, kStep);
  CudaKeySwitchWorkload gpu(*gpu_engine, kLevels, kStep);
  ASSERT_EQ(gpu.operations().size(), 4u);
  for (std::size_t i = 0; i < gpu.operations().size(); ++i) {
    const KeySwitchOperation& op = gpu.operations()[i];
    EXPECT_EQ(op.name(), cpu.operations()[i].name());
    const Ciphertext expected = cpu.run(op);
    gpu.launch(i, /*graph=*/false);
    const Ciphertext eager = gpu.download_output();
    EXPECT_TRUE(same_words(eager, expected)) << GetParam() << " " << op.name() << " eager";
    for (int replay = 0; replay < 2; ++replay) {
      gpu.launch(i, /*graph=*/true);
      EXPECT_TRUE(same_words(gpu.download_output(), expected)) << GetParam() << " " << op.name() << " replay "
                                                                << replay;
    }
    const double error = gpu.max_abs_error(op, eager);
    EXPECT_GT(error, 0.0) << op.name();
    EXPECT_LE(error, op.kind == KeySwitchKind::relinearize ? 3e-5 : 2e-5) << op.name();
  }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, CudaKeySwitchBackends, ::testing::ValuesIn(backend_names()),
                         [](const auto& info) { return info.param; });

TEST(CudaKeySwitch, InterleavedReplaysKeepEachOutputsShape) {
  FHE_SKIP_WITHOUT_GPU();
  const auto engine = make_engine("cuda:0", "");
  CudaKeySwitchWorkload gpu(*engine, kLevels, kStep);
  std::vector<Ciphertext> first;
  for (std::size_t i = 0; i < gpu.operations().size(); ++i) {
    gpu.launch(i, true);  // captures operation i
    first.push_back(gpu.download_output());
    EXPECT_EQ(first.back().level, gpu.operations()[i].level);
    EXPECT_EQ(first.back().size(), 2u);
  }
  // Replays in reverse order, then timed ones: the metadata follows the
  // replayed operation, not the last capture.
  for (std::size_t i = gpu.operations().size(); i-- > 0;) {
    gpu.launch(i, true);
    EXPECT_TRUE(same_words(gpu.download_output(), first[i])) << gpu.operations()[i].name();
    EXPECT_GT(gpu.time_launch_ms(i, true), 0.0);
    EXPECT_TRUE(same_words(gpu.download_output(), first[i])) << gpu.operations()[i].name() << " timed";
  }
  EXPECT_THROW(gpu.launch(4, true), InvalidArgument);
}

TEST(CudaKeySwitch, PlanNamesTheKeysAndIsRefusedBeforeAllocation) {
  FHE_SKIP_WITHOUT_GPU();
  const auto engine = make_engine("cuda:0", "");
  const MemoryPlan plan = CudaKeySwitchWorkload::plan_memory(*engine, kLevels);
  ASSERT_EQ(plan.items.size(), 4u);
  EXPECT_EQ(plan.items[0].name, "keys");
  EXPECT_EQ(plan.items[0].bytes, CudaEvaluator::estimate_memory(*engine).key_bytes);
  EXPECT_EQ(plan.items[2].bytes, kLevels.size() * 5 * ciphertext_bytes(engine->preset(), 0) / 2);
  try {
    CudaKeySwitchWorkload gpu(*engine, kLevels, kStep, {.assume_free_bytes = 1});
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("keyswitch at levels 0,4"), std::string::npos) << message;
    EXPECT_NE(message.find("needs keys "), std::string::npos) << message;
    EXPECT_NE(message.find("cuda:0 has"), std::string::npos) << message;
  }
  // Refused before the inputs were encrypted: the engine's counter is untouched.
  EXPECT_EQ(engine->encryption_count(), 0u);
}

TEST(CudaKeySwitch, NeedsItsKeys) {
  FHE_SKIP_WITHOUT_GPU();
  CkksEngine engine(kPreset, {.device = "cuda:0", .seed = 1});
  EXPECT_THROW(CudaKeySwitchWorkload(engine, kLevels, kStep), InvalidArgument);
  engine.generate_keys({1});
  EXPECT_THROW(CudaKeySwitchWorkload(engine, kLevels, kStep), InvalidArgument);
}

// Needs no GPU: the engine is on the CPU and is refused before any CUDA call.
TEST(CudaKeySwitch, RefusesACpuEngine) {
  const auto engine = make_engine("cpu", "");
  try {
    CudaKeySwitchWorkload gpu(*engine, kLevels, kStep);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("engine on cpu"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fhe::workloads
