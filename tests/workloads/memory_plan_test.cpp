// Memory estimates: the SPEC's key size, totals, and the refusal message.
#include <gtest/gtest.h>

#include "evaluator/cuda_workspace.h"
#include "evaluator/switch_key_layout.h"
#include "fhe/core/error.h"
#include "fhe/params/preset.h"
#include "workloads/memory_plan.h"

namespace {

using namespace fhe::workloads;

// 390 MiB as 64-bit words (10 digits x (b, a) x 39 rows x 65536 words x
// 8 bytes); on the device the 34 rows of 40-bit scale primes take 6 bytes
// a word (evaluator/switch_key_layout.h), the base and P primes 8.
TEST(MemoryPlan, DefaultPresetKeyIs305MiBOnTheDevice) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  EXPECT_EQ(fhe::device_switch_key_bytes(preset), 10ull * (34 * 12 + 5 * 16) * 65536);
  EXPECT_NEAR(fhe::device_switch_key_bytes(preset) / (1024.0 * 1024.0), 305.0, 0.5);
  EXPECT_EQ(ciphertext_bytes(preset, 34), 2ull * 1 * 65536 * 8);
}

// What a CudaEvaluator allocates at the default preset (35 Q + 4 P rows,
// N = 65536, 10 digits), from the layout in evaluator/cuda/.
TEST(MemoryPlan, CudaEvaluatorWorkspacesAndKeysAtTheDefaultPreset) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const std::size_t row = 65536ull * 8;
  const fhe::CudaWorkspaceWords words = fhe::cuda_workspace_words(preset);
  EXPECT_EQ(words.coefficients * 8, 35 * row);
  EXPECT_EQ(words.extended * 8, 10 * 39 * row);  // every digit over QP
  EXPECT_EQ(words.accumulators * 8, 2 * 39 * row);
  EXPECT_EQ(words.converted * 8, 8 * 35 * row);  // the ModDowns of four rotations
  EXPECT_EQ(words.dropped * 8, 8 * row);
  EXPECT_EQ(words.rotations * 8, 4 * 78 * row);  // four hoisted rotations over QP
  EXPECT_EQ(words.total() * 8, (35 + 390 + 78 + 280 + 8 + 312) * row);
  // secret (QP) + public key (2 x Q) + relinearization and 127 Galois keys
  // + a 4-byte permutation table per Galois key.
  EXPECT_EQ(fhe::cuda_key_bytes(preset, 127),
            39 * row + 2 * 35 * row + 128 * fhe::device_switch_key_bytes(preset) + 127 * 65536ull * 4);
}

// The host holds key-switching keys as 64-bit words, a CUDA device in its
// packed layout: the plans count the keys where they are held.
TEST(MemoryPlan, KeysAreCountedWhereTheyAreHeld) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const MatvecConfig config{.dim = 128, .hoist = 64};
  const std::size_t host = plan_matvec_memory(preset, config, fhe::DeviceKind::cpu).bytes_of("keys");
  const std::size_t device = plan_matvec_memory(preset, config, fhe::DeviceKind::cuda).bytes_of("keys");
  EXPECT_EQ(host, fhe::host_key_bytes(preset, 127));
  EXPECT_EQ(device, fhe::cuda_key_bytes(preset, 127));
  // 128 key-switching keys x 10 digits x (b, a) x 34 narrow rows x 2 bytes a word.
  EXPECT_EQ(host - device, 128ull * 10 * 2 * 34 * 2 * 65536);
  EXPECT_EQ(plan_keyswitch_memory(preset, {0}, fhe::DeviceKind::cpu).bytes_of("keys"),
            fhe::host_key_bytes(preset, 1));
}

// Per worker the plan holds the evaluator's workspaces and the worker's
// ciphertexts: a second worker adds exactly that.
TEST(MemoryPlan, EachWorkerAddsItsEvaluatorAndItsCiphertexts) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const std::size_t evaluator = fhe::cuda_workspace_words(preset).total() * 8;
  const std::size_t ciphertext = ciphertext_bytes(preset, 0), extended = 2 * preset.qp_rows() * preset.n() * 8;
  struct Case {
    MatvecConfig config;
    std::size_t per_worker;
  };
  for (const Case& c : {
           // diagonal batch, hoist 16: 16 rotations + product, pending, rescaled, sum
           Case{{.dim = 128, .hoist = 16}, evaluator + 20 * ciphertext},
           // bsgs batch: + inner sum and its rotation
           Case{{.dim = 128, .method = MatvecMethod::bsgs}, evaluator + 6 * ciphertext},
           // diagonal lazy: the four, and the extended sum
           Case{{.dim = 128, .policy = DiagonalPolicy::lazy_moddown}, evaluator + 4 * ciphertext + extended},
       }) {
    MatvecConfig two = c.config;
    two.workers = 2;
    EXPECT_EQ(plan_matvec_memory(preset, two, fhe::DeviceKind::cuda).bytes_of("workspaces") -
                  plan_matvec_memory(preset, c.config, fhe::DeviceKind::cuda).bytes_of("workspaces"),
              c.per_worker);
  }
}

TEST(MemoryPlan, DiagonalMatvecIsDominatedByItsKeys) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const MemoryPlan plan = plan_matvec_memory(preset, MatvecConfig{.dim = 128, .hoist = 64}, fhe::DeviceKind::cuda);
  ASSERT_EQ(plan.items[0].name, "keys");
  EXPECT_EQ(plan.items[0].bytes, fhe::cuda_key_bytes(preset, 127));  // 127 Galois + relin
  EXPECT_GT(plan.items[0].bytes, plan.total_bytes() / 2);
  const MemoryPlan bsgs =
      plan_matvec_memory(preset, MatvecConfig{.dim = 128, .method = MatvecMethod::bsgs}, fhe::DeviceKind::cuda);
  EXPECT_EQ(bsgs.items[0].bytes, fhe::cuda_key_bytes(preset, 22));  // 15 + 7 + relin
}

TEST(MemoryPlan, BsgsPlanFollowsTheBabyStepCount) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  // d = 128, g = 32: 31 baby + 3 giant steps, plus relinearization.
  MatvecConfig config{.dim = 128, .method = MatvecMethod::bsgs, .baby_steps = 32};
  EXPECT_EQ(plan_matvec_memory(preset, config, fhe::DeviceKind::cuda).bytes_of("keys"),
            fhe::cuda_key_bytes(preset, 34));
  // lazy-moddown keeps, per worker, the inner sums of its giant steps (4 at
  // g = 32, 8 at g = 16) and stores the g baby steps over QP, unless one
  // worker's giant steps fuse their inner sums (g = 32: 4 giant steps, no
  // baby step stored; g = 16: 8 giant steps, 16 stored).
  config.policy = DiagonalPolicy::lazy_moddown;
  MatvecConfig sixteen = config;
  sixteen.baby_steps = 16;
  const std::size_t extended = 2 * preset.qp_rows() * preset.n() * 8;
  EXPECT_TRUE(lazy_bsgs_fuses_inner_sums(config.workers, 128 / 32));
  EXPECT_FALSE(lazy_bsgs_fuses_inner_sums(sixteen.workers, 128 / 16));
  EXPECT_EQ(plan_matvec_memory(preset, sixteen, fhe::DeviceKind::cuda).bytes_of("workspaces") -
                plan_matvec_memory(preset, config, fhe::DeviceKind::cuda).bytes_of("workspaces"),
            (16 + 8 - 4) * extended);
  // Two workers at g = 32 hold 2 giant steps each: a second evaluator and
  // its ciphertexts, 2 x (1 + 2) extended sums against 1 + 4, and the 32
  // baby steps stored.
  MatvecConfig two = config;
  two.workers = 2;
  EXPECT_FALSE(lazy_bsgs_fuses_inner_sums(two.workers, 2));
  const std::size_t second_worker = fhe::cuda_workspace_words(preset).total() * 8 + 6 * ciphertext_bytes(preset, 0);
  EXPECT_EQ(plan_matvec_memory(preset, two, fhe::DeviceKind::cuda).bytes_of("workspaces") -
                plan_matvec_memory(preset, config, fhe::DeviceKind::cuda).bytes_of("workspaces"),
            second_worker + (6 - 5) * extended + 32 * extended);
}

TEST(MemoryPlan, LazyBsgsCountsOnePassOfInnerSumsPerWorker) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  MatvecConfig config{
      .dim = 128, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::lazy_moddown, .baby_steps = 16};
  EXPECT_EQ(lazy_bsgs_inner_sums(config), 8);  // 8 giant steps, one pass
  config.workers = 3;
  EXPECT_EQ(lazy_bsgs_inner_sums(config), 3);  // the largest of 2, 3, 3
  config.workers = 1;
  config.baby_steps = 2;
  EXPECT_EQ(lazy_bsgs_inner_sums(config), kLazyBsgsInnerSumsPerPass);  // 64 giant steps, passes of 8
  EXPECT_EQ(lazy_bsgs_inner_sums(MatvecConfig{.dim = 128, .method = MatvecMethod::bsgs}), 0);
  // Capped: g = 4 (32 giant steps) and g = 8 (16) hold the same inner sums,
  // so their plans differ by the 4 extra baby steps only.
  MatvecConfig four = config, eight = config;
  four.baby_steps = 4;
  eight.baby_steps = 8;
  EXPECT_EQ(plan_matvec_memory(preset, eight, fhe::DeviceKind::cuda).bytes_of("workspaces") -
                plan_matvec_memory(preset, four, fhe::DeviceKind::cuda).bytes_of("workspaces"),
            4 * 2 * preset.qp_rows() * preset.n() * 8);
}

// On CUDA the lazy matvecs' diagonals hold one word a block: period 128 at
// N = 2^16 gives blocks of 256 words, 256 words a row (evaluator/block_rows.h);
// the CPU keeps every word, as do the batch and loop policies (Q rows only).
TEST(MemoryPlan, LazyMatvecsOnCudaCountOneDiagonalWordABlock) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  ASSERT_EQ(preset.n(), 65536u);
  const std::size_t qp_rows = preset.qp_rows();
  for (const MatvecMethod method : {MatvecMethod::bsgs, MatvecMethod::diagonal}) {
    const MatvecConfig lazy{.dim = 128, .method = method, .policy = DiagonalPolicy::lazy_moddown};
    // bsgs: g = 26, 5 giant steps of 26 diagonals, the last 2 of them zero.
    const std::size_t diagonals = method == MatvecMethod::bsgs ? 130 : 128;
    EXPECT_EQ(plan_matvec_memory(preset, lazy, fhe::DeviceKind::cuda).bytes_of("diagonals"),
              diagonals * qp_rows * 256 * 8);
    EXPECT_EQ(plan_matvec_memory(preset, lazy, fhe::DeviceKind::cpu).bytes_of("diagonals"),
              diagonals * qp_rows * preset.n() * 8);
    MatvecConfig sixteen = lazy;
    sixteen.dim = 16;  // blocks of 2048
    EXPECT_EQ(plan_matvec_memory(preset, sixteen, fhe::DeviceKind::cuda).bytes_of("diagonals"),
              16 * qp_rows * 32 * 8);
  }
  const MatvecConfig batch{.dim = 128};
  EXPECT_EQ(plan_matvec_memory(preset, batch, fhe::DeviceKind::cuda).bytes_of("diagonals"),
            128 * preset.active_q_rows(0) * preset.n() * 8);
}

TEST(MemoryPlan, SmallerDimensionSuggestionKeepsTheBabyStepsValid) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const MatvecConfig config{.dim = 128, .method = MatvecMethod::bsgs, .hoist = 1, .baby_steps = 128};
  const MatvecConfig fitting{.dim = 64, .method = MatvecMethod::bsgs, .hoist = 1, .baby_steps = 64};
  try {
    require_fits(preset, config, fhe::DeviceKind::cuda,
                 plan_matvec_memory(preset, fitting, fhe::DeviceKind::cuda).total_bytes(), "cuda:0");
    FAIL() << "expected a refusal";
  } catch (const fhe::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("largest that fits: --dim 64 --hoist 1 --baby-steps 64"),
              std::string::npos)
        << e.what();
  }
}

// Too many workers: the suggestion is fewer of them, not a smaller problem,
// and it accounts for backends held at once (keys shared, the rest each's).
TEST(MemoryPlan, SuggestionsTryFewerWorkersFirstAndHoldForEveryCopy) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const MatvecConfig config{.dim = 128, .hoist = 64, .workers = 8};
  MatvecConfig two = config;
  two.workers = 2;
  const MemoryPlan fitting = plan_matvec_memory(preset, two, fhe::DeviceKind::cuda);
  const std::size_t keys = fitting.bytes_of("keys");
  for (const std::size_t copies : {1u, 3u}) {
    const std::size_t available = keys + copies * (fitting.total_bytes() - keys);
    EXPECT_TRUE(fits(fitting, available, copies));
    try {
      require_fits(preset, config, fhe::DeviceKind::cuda, available, "cuda:0", copies);
      FAIL() << "expected a refusal";
    } catch (const fhe::DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("largest that fits: --workers 2"), std::string::npos) << e.what();
    }
  }
}

TEST(MemoryPlan, RefusalNamesTheLargestConfigurationThatFits) {
  const auto& preset = fhe::preset_by_name(fhe::kDefaultPresetName);
  const MatvecConfig config{.dim = 128, .hoist = 64};
  const std::size_t needed = plan_matvec_memory(preset, config, fhe::DeviceKind::cuda).total_bytes();
  EXPECT_NO_THROW(require_fits(preset, config, fhe::DeviceKind::cuda, needed, "cuda:0"));
  try {
    require_fits(preset, config, fhe::DeviceKind::cuda, needed / 4, "cuda:0");
    FAIL() << "expected a refusal";
  } catch (const fhe::DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("largest that fits: --dim"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda:0"), std::string::npos);
  }
  try {
    require_fits(preset, config, fhe::DeviceKind::cuda, 1 << 20, "cuda:0");
    FAIL();
  } catch (const fhe::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("none (the keys alone exceed it)"), std::string::npos) << e.what();
  }
}

}  // namespace
