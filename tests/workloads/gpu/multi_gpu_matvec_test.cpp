// The multi-GPU matvec (label gpu; skipped with the reason without GPUs),
// test preset, d = 16. One rank through the whole multi-process path
// (NCCL communicator of one, broadcast, barrier, reduction, gathering)
// gives the words of a one-GPU CudaMatvec; two ranks (when two GPUs are
// present) give the words of one GPU with two workers; a rank that fails
// makes rank 0 fail with its name; the CLI prints the per-rank and
// reduction times.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fhe/core/device_info.h"
#include "fhe/core/error.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "tests/support/process.h"
#include "workloads/matvec/cuda_matvec.h"
#include "workloads/matvec/multi_gpu_nccl_matvec.h"

namespace fhe::workloads {
namespace {

using fhe::testing::same_words;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";
constexpr std::uint64_t kEngineSeed = 11;

#define SKIP_WITHOUT_TWO_GPUS()                                                                   \
  do {                                                                                            \
    const ::fhe::GpuInventory inventory = ::fhe::query_gpus();                                    \
    if (inventory.gpus.size() < 2) {                                                              \
      GTEST_SKIP() << "needs 2 CUDA devices, " << inventory.gpus.size() << " visible"             \
                   << (inventory.status.empty() ? "" : " (" + inventory.status + ")");            \
    }                                                                                             \
  } while (0)

MultiGpuMatvecRequest small_request(MatvecMethod method, int gpus, DiagonalPolicy policy = DiagonalPolicy::batch,
                                    int workers = 1) {
  return {.preset = kPreset,
          .ntt_backend = "",
          .engine_seed = kEngineSeed,
          .config = {.dim = 16, .method = method, .policy = policy, .hoist = 4, .batch = 3, .workers = workers,
                     .seed = 5},
          .gpus = gpus,
          .warmup = 1,
          .runs = 2,
          .timeout_s = 300};
}

MultiGpuLaunch fhelium_ranks() { return {{FHELIUM_BINARY, "workload", "matvec"}}; }

// The one-GPU product of the run's input with `workers` workers: an engine
// with the same seed holds the same keys (each key depends on its own step).
Ciphertext one_gpu_product(const MultiGpuMatvecResult& run, int workers) {
  CkksEngine engine(kPreset, {.device = "cuda:0", .ntt_backend = run.request.ntt_backend, .seed = kEngineSeed});
  MatvecConfig config = run.request.config;
  config.workers = workers;
  engine.generate_keys(matvec_rotation_steps(config));
  CudaMatvec matvec(engine, config);
  matvec.stage(run.input);
  matvec.launch(true);
  return matvec.download_result();
}

void expect_complete_measurements(const MultiGpuMatvecResult& run) {
  const auto gpus = static_cast<std::size_t>(run.request.gpus);
  for (const MultiGpuModeResult* mode : {&run.graph, &run.eager}) {
    ASSERT_EQ(mode->part_ms.size(), gpus);
    for (const auto& samples : mode->part_ms) {
      ASSERT_EQ(samples.size(), 2u);
      for (double ms : samples) EXPECT_GT(ms, 0.0);
    }
    // The slowest rank per sample, computed here rather than by the code under test.
    ASSERT_EQ(mode->slowest_ms.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      double slowest = 0;
      for (const auto& samples : mode->part_ms) slowest = std::max(slowest, samples[i]);
      EXPECT_EQ(mode->slowest_ms[i], slowest) << i;
    }
    EXPECT_EQ(mode->reduction_ms.size(), 2u);
    EXPECT_LT(mode->max_abs_error, 5e-5);
  }
  EXPECT_EQ(run.shares.size(), gpus);
  EXPECT_EQ(run.rank_plans.size(), gpus);
}

class MultiGpuMatvecMethods : public ::testing::TestWithParam<MatvecMethod> {};

TEST_P(MultiGpuMatvecMethods, OneRankGivesTheOneGpuWords) {
  FHE_SKIP_WITHOUT_GPU();
  const MultiGpuMatvecResult run = run_multi_gpu_matvec(small_request(GetParam(), 1), fhelium_ranks());
  expect_complete_measurements(run);
  EXPECT_EQ(run.graph.part_ms[0], run.graph.slowest_ms);
  EXPECT_TRUE(same_words(run.graph.result, run.eager.result));
  EXPECT_TRUE(same_words(run.graph.result, one_gpu_product(run, 1)));
}

TEST_P(MultiGpuMatvecMethods, TwoRanksGiveTheWordsOfTwoWorkersOnOneGpu) {
  FHE_SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_TWO_GPUS();
  const MultiGpuMatvecResult run = run_multi_gpu_matvec(small_request(GetParam(), 2), fhelium_ranks());
  expect_complete_measurements(run);
  EXPECT_TRUE(same_words(run.graph.result, run.eager.result));
  EXPECT_TRUE(same_words(run.graph.result, one_gpu_product(run, 2)));
}

TEST_P(MultiGpuMatvecMethods, TwoRanksOfTwoWorkersUnderTheLoopPolicyGiveTheOneWorkerWords) {
  FHE_SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_TWO_GPUS();
  // Loop: every term is rescaled alone, so no regrouping changes the words.
  const MultiGpuMatvecResult run =
      run_multi_gpu_matvec(small_request(GetParam(), 2, DiagonalPolicy::loop, 2), fhelium_ranks());
  expect_complete_measurements(run);
  EXPECT_TRUE(same_words(run.graph.result, one_gpu_product(run, 1)));
}

TEST_P(MultiGpuMatvecMethods, TwoLazyModDownRanksGiveTheOneGpuWords) {
  FHE_SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_TWO_GPUS();
  // The ranks send their sums before ModDown; rank 0 adds them and runs the
  // one ModDown and rescale, so the words equal one GPU with one worker.
  const MultiGpuMatvecResult run = run_multi_gpu_matvec(
      small_request(GetParam(), 2, DiagonalPolicy::lazy_moddown, 2), fhelium_ranks());
  expect_complete_measurements(run);
  EXPECT_TRUE(same_words(run.graph.result, run.eager.result));
  EXPECT_TRUE(same_words(run.graph.result, one_gpu_product(run, 1)));
}

INSTANTIATE_TEST_SUITE_P(Methods, MultiGpuMatvecMethods,
                         ::testing::Values(MatvecMethod::diagonal, MatvecMethod::bsgs),
                         [](const auto& info) { return std::string(method_name(info.param)); });

TEST(MultiGpuMatvec, AFailingRankFailsRankZeroWithItsName) {
  FHE_SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_TWO_GPUS();
  try {
    run_multi_gpu_matvec(small_request(MatvecMethod::diagonal, 2), {{"/bin/false"}});
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find("rank 1 on cuda:1 exited with status 1"), std::string::npos)
        << error.what();
  }
}

// The command line with --gpus: JSON with one entry per rank.
nlohmann::json run_cli(int gpus) {
  const auto result = fhelium::testing::run_command(
      std::string(FHELIUM_BINARY) + " workload matvec --preset " + kPreset +
      " --dim 16 --hoist 4 --batch 3 --runs 2 --json --gpus " + std::to_string(gpus));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

void expect_cli_run(const nlohmann::json& out, int gpus) {
  EXPECT_EQ(out["gpus"], gpus);
  ASSERT_EQ(out["ranks"].size(), static_cast<std::size_t>(gpus));
  EXPECT_EQ(out["samples_ms"].size(), 2u);
  EXPECT_EQ(out["reduction_samples_ms"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(out["end_to_end_samples_ms"][i].get<double>(),
                     out["samples_ms"][i].get<double>() + out["reduction_samples_ms"][i].get<double>());
  }
  EXPECT_EQ(out["graph_equals_eager"], true);
  EXPECT_LT(out["max_abs_error"].get<double>(), 5e-5);
  // The ranks cover the 16 diagonals in order; each sample's latency is
  // its slowest rank's part.
  int next = 0;
  std::vector<double> slowest(2, 0.0);
  for (const auto& rank : out["ranks"]) {
    EXPECT_EQ(rank["steps"][0], next);
    next = rank["steps"][1].get<int>();
    ASSERT_EQ(rank["part_samples_ms"].size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) slowest[i] = std::max(slowest[i], rank["part_samples_ms"][i].get<double>());
  }
  EXPECT_EQ(next, 16);
  EXPECT_EQ(out["samples_ms"].get<std::vector<double>>(), slowest);
}

TEST(MultiGpuMatvecCli, OneGpu) {
  FHE_SKIP_WITHOUT_GPU();
  expect_cli_run(run_cli(1), 1);
}

TEST(MultiGpuMatvecCli, TwoGpus) {
  FHE_SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_TWO_GPUS();
  expect_cli_run(run_cli(2), 2);
}

}  // namespace
}  // namespace fhe::workloads
