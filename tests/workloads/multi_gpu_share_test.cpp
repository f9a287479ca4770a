// The division of a matvec across ranks (multi_gpu_share.h): one rank is
// the one-GPU product; G ranks cover every step once (BSGS baby steps on
// every rank), each with its own keys, diagonals and memory; the --gpus
// checks; the slowest-rank latency per sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "evaluator/cuda_workspace.h"
#include "fhe/core/error.h"
#include "fhe/params/preset.h"
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/matvec_workload.h"
#include "workloads/matvec/multi_gpu_share.h"

namespace fhe::workloads {
namespace {

MatvecConfig config_of(MatvecMethod method, int dim, int workers = 1) {
  return {.dim = dim, .method = method, .hoist = 4, .batch = 3, .workers = workers, .seed = 5};
}

std::size_t item_bytes(const MemoryPlan& plan, const std::string& name) {
  const std::size_t bytes = plan.bytes_of(name);
  if (bytes == 0) ADD_FAILURE() << "no memory item " << name << " in " << plan.summary();
  return bytes;
}

using Ranges = std::vector<std::pair<int, int>>;

TEST(MultiGpuShare, PartitionedCountIsDiagonalsOrGiantSteps) {
  EXPECT_EQ(matvec_partitioned_count(config_of(MatvecMethod::diagonal, 16)), 16);
  EXPECT_EQ(matvec_partitioned_count(config_of(MatvecMethod::bsgs, 16)), 4);   // g = 4
  EXPECT_EQ(matvec_partitioned_count(config_of(MatvecMethod::bsgs, 128)), 8);  // g = 16
  MatvecConfig explicit_g = config_of(MatvecMethod::bsgs, 128);
  explicit_g.baby_steps = 32;
  EXPECT_EQ(matvec_partitioned_count(explicit_g), 4);
  explicit_g.baby_steps = 128;
  EXPECT_EQ(matvec_partitioned_count(explicit_g), 1);
}

TEST(MultiGpuShare, OneRankIsTheWholeOneGpuProduct) {
  const Preset& preset = preset_by_name("test-slots2048-scale40-levels6-int64");
  for (MatvecMethod method : {MatvecMethod::diagonal, MatvecMethod::bsgs}) {
    for (int dim : {2, 16, 64}) {
      for (int workers : {1, 3}) {
        const MatvecConfig config = config_of(method, dim, workers);
        const int count = matvec_partitioned_count(config);
        SCOPED_TRACE(std::string(method_name(method)) + " dim " + std::to_string(dim) + " workers " +
                     std::to_string(workers));
        EXPECT_EQ(share_range(config, {}), std::make_pair(0, count));
        EXPECT_EQ(share_worker_ranges(config, {}), partition_range(count, workers));
        EXPECT_EQ(share_rotation_steps(config, {}), matvec_rotation_steps(config));
        EXPECT_EQ(plan_share_memory(preset, config, {}).total_bytes(),
                  plan_matvec_memory(preset, config, fhe::DeviceKind::cuda).total_bytes());
        for (int s = 0; s < dim; ++s) EXPECT_TRUE(share_uses_diagonal(config, {}, s));
      }
    }
  }
}

TEST(MultiGpuShare, TwoRanksOfTheDiagonalMethod) {
  const MatvecConfig config = config_of(MatvecMethod::diagonal, 16);
  EXPECT_EQ(share_range(config, {0, 2}), std::make_pair(0, 8));
  EXPECT_EQ(share_range(config, {1, 2}), std::make_pair(8, 16));
  EXPECT_EQ(share_rotation_steps(config, {0, 2}), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));  // step 0 needs no key
  EXPECT_EQ(share_rotation_steps(config, {1, 2}), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_TRUE(share_uses_diagonal(config, {1, 2}, 8));
  EXPECT_FALSE(share_uses_diagonal(config, {1, 2}, 7));
}

TEST(MultiGpuShare, TwoRanksOfBsgsShareTheBabyStepsAndSplitTheGiantSteps) {
  const MatvecConfig config = config_of(MatvecMethod::bsgs, 16);  // g = 4: giant steps 0, 4, 8, 12
  EXPECT_EQ(share_range(config, {0, 2}), std::make_pair(0, 2));
  EXPECT_EQ(share_range(config, {1, 2}), std::make_pair(2, 4));
  EXPECT_EQ(share_rotation_steps(config, {0, 2}), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(share_rotation_steps(config, {1, 2}), (std::vector<int>{1, 2, 3, 8, 12}));
  // Diagonal s belongs to giant step s / g.
  EXPECT_TRUE(share_uses_diagonal(config, {0, 2}, 7));
  EXPECT_FALSE(share_uses_diagonal(config, {0, 2}, 8));
  EXPECT_TRUE(share_uses_diagonal(config, {1, 2}, 15));
}

TEST(MultiGpuShare, WorkersSplitTheirRanksShare) {
  const MatvecConfig config = config_of(MatvecMethod::diagonal, 16, 3);
  EXPECT_EQ(share_worker_ranges(config, {1, 2}), (Ranges{{8, 10}, {10, 13}, {13, 16}}));
}

TEST(MultiGpuShare, RanksOfOneWorkerSplitLikeOneGpuWithAsManyWorkers) {
  for (MatvecMethod method : {MatvecMethod::diagonal, MatvecMethod::bsgs}) {
    const MatvecConfig one_worker = config_of(method, 64);
    const int count = matvec_partitioned_count(one_worker);
    for (int ranks = 1; ranks <= count; ++ranks) {
      const Ranges workers = partition_range(count, ranks);
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(share_worker_ranges(one_worker, {r, ranks}), Ranges{workers[static_cast<std::size_t>(r)]})
            << method_name(method) << " rank " << r << " of " << ranks;
      }
    }
  }
}

TEST(MultiGpuShare, RanksCoverEveryStepOnceAndTheirKeysCoverTheProduct) {
  for (MatvecMethod method : {MatvecMethod::diagonal, MatvecMethod::bsgs}) {
    const MatvecConfig config = config_of(method, 64);
    const int count = matvec_partitioned_count(config);
    const std::vector<int> all_steps = matvec_rotation_steps(config);
    for (int ranks = 1; ranks <= count; ++ranks) {
      SCOPED_TRACE(std::string(method_name(method)) + " ranks " + std::to_string(ranks));
      int next = 0;
      std::set<int> keys;
      std::size_t key_total = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto [begin, end] = share_range(config, {r, ranks});
        EXPECT_EQ(begin, next);
        EXPECT_LT(begin, end);  // every rank has work
        next = end;
        const auto steps = share_rotation_steps(config, {r, ranks});
        keys.insert(steps.begin(), steps.end());
        key_total += steps.size();
      }
      EXPECT_EQ(next, count);
      EXPECT_EQ(std::vector<int>(keys.begin(), keys.end()), all_steps);
      if (method == MatvecMethod::diagonal) EXPECT_EQ(key_total, all_steps.size());  // no key twice
    }
  }
}

TEST(MultiGpuShare, RankPlansCountOnlyTheShareAndTheNcclBuffers) {
  const Preset& preset = preset_by_name("test-slots2048-scale40-levels6-int64");
  const MatvecConfig config = config_of(MatvecMethod::diagonal, 16);
  const MemoryPlan whole = plan_matvec_memory(preset, config, fhe::DeviceKind::cuda);
  const MemoryPlan rank0 = plan_rank_memory(preset, config, {0, 2}), rank1 = plan_rank_memory(preset, config, {1, 2});
  EXPECT_EQ(item_bytes(rank0, "keys"), fhe::cuda_key_bytes(preset, 7));  // 7 steps (+ relinearization)
  EXPECT_EQ(item_bytes(rank1, "keys"), fhe::cuda_key_bytes(preset, 8));
  EXPECT_EQ(2 * item_bytes(rank0, "diagonals"), item_bytes(whole, "diagonals"));
  EXPECT_EQ(item_bytes(rank0, "workspaces"), item_bytes(whole, "workspaces"));
  // Input on every rank; rank 0 of two also receives one partial and sums.
  EXPECT_EQ(item_bytes(rank0, "nccl buffers"), 3 * ciphertext_bytes(preset, 0));
  EXPECT_EQ(item_bytes(rank1, "nccl buffers"), 1 * ciphertext_bytes(preset, 0));
  EXPECT_EQ(item_bytes(plan_rank_memory(preset, config, {}), "nccl buffers"), ciphertext_bytes(preset, 0));
}

TEST(MultiGpuShare, InvalidSharesAreRefused) {
  const MatvecConfig config = config_of(MatvecMethod::bsgs, 16);  // 4 giant steps
  EXPECT_THROW(validate_share(config, {-1, 2}), InvalidArgument);
  EXPECT_THROW(validate_share(config, {2, 2}), InvalidArgument);
  EXPECT_THROW(validate_share(config, {0, 0}), InvalidArgument);
  EXPECT_THROW(share_range(config, {0, 5}), InvalidArgument);
  EXPECT_NO_THROW(validate_share(config, {3, 4}));
}

TEST(MultiGpuShare, LazyRanksHoldQpDiagonalsAndExchangeQpSums) {
  const auto& preset = fhe::preset_by_name("test-slots2048-scale40-levels6-int64");
  MatvecConfig lazy = config_of(MatvecMethod::diagonal, 16);
  lazy.policy = DiagonalPolicy::lazy_moddown;
  const std::size_t row = preset.n() * 8;
  const MemoryPlan rank0 = plan_rank_memory(preset, lazy, {0, 2});
  // Its 8 of 16 over QP rows, one word a block of n / 32 (period 16).
  EXPECT_EQ(item_bytes(rank0, "diagonals"), 8 * preset.qp_rows() * row / (preset.n() / 32));
  // The broadcast input (Q rows), then on rank 0 one received sum and the total (QP rows).
  const std::size_t input = ciphertext_bytes(preset, 0), sum = 2 * preset.qp_rows() * row;
  EXPECT_EQ(item_bytes(rank0, "nccl buffers"), input + 2 * sum);
  EXPECT_EQ(item_bytes(plan_rank_memory(preset, lazy, {1, 2}), "nccl buffers"), input);
}

template <typename Error>
void expect_refusal(const MatvecConfig& config, int gpus, int visible, const std::string& must_mention) {
  try {
    validate_gpu_count(config, gpus, visible, "no CUDA driver");
    ADD_FAILURE() << "--gpus " << gpus << " with " << visible << " visible was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(must_mention), std::string::npos) << error.what();
  }
}

TEST(MultiGpuShare, GpuCountChecks) {
  const MatvecConfig diagonal = config_of(MatvecMethod::diagonal, 16), bsgs = config_of(MatvecMethod::bsgs, 16);
  expect_refusal<InvalidArgument>(diagonal, 0, 8, "--gpus must be at least 1 (got 0)");
  expect_refusal<InvalidArgument>(diagonal, -2, 8, "at least 1");
  expect_refusal<DeviceError>(diagonal, 3, 0, "--gpus 3 needs 3 CUDA devices but 0 are visible (no CUDA driver)");
  expect_refusal<DeviceError>(diagonal, 2, 1, "but 1 is visible");
  expect_refusal<InvalidArgument>(bsgs, 5, 8, "exceeds the 4 giant steps of bsgs at --dim 16");
  EXPECT_NO_THROW(validate_gpu_count(diagonal, 1, 1, ""));
  EXPECT_NO_THROW(validate_gpu_count(bsgs, 4, 8, ""));
}

TEST(MultiGpuShare, RanksUseTheExplicitBabyStepCount) {
  MatvecConfig config = config_of(MatvecMethod::bsgs, 16);
  config.baby_steps = 8;  // giant steps 0 and 8
  EXPECT_EQ(share_range(config, {1, 2}), std::make_pair(1, 2));
  EXPECT_EQ(share_rotation_steps(config, {0, 2}), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(share_rotation_steps(config, {1, 2}), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  for (int s = 0; s < 16; ++s) EXPECT_EQ(share_uses_diagonal(config, {1, 2}, s), s >= 8) << s;
  expect_refusal<InvalidArgument>(config, 3, 8, "exceeds the 2 giant steps of bsgs at --dim 16 --baby-steps 8");
}

TEST(MultiGpuShare, SlowestRankPerSample) {
  EXPECT_EQ(slowest_rank_per_sample({{1.0, 5.0, 3.0}, {2.0, 4.0, 3.0}}), (std::vector<double>{2.0, 5.0, 3.0}));
  EXPECT_EQ(slowest_rank_per_sample({{7.0}}), std::vector<double>{7.0});
  EXPECT_THROW(slowest_rank_per_sample({{1.0, 2.0}, {1.0}}), InvalidArgument);
}

}  // namespace
}  // namespace fhe::workloads
