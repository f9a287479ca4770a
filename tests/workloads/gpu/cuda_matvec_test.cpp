// CudaMatvec on the small test preset (d = 16): results within 5e-5 of the
// Eigen product, graph replays equal eager runs word for word over several
// staged inputs, the CPU MatvecWorkload's words for one worker, BSGS agrees
// with the diagonal method, workers = 2 agrees with workers = 1, the
// lazy-moddown policy gives the CPU's words for any worker count, so does an
// explicit BSGS baby-step count (also with more giant steps per worker than
// one inner-sum pass serves), so do single rotations whose key switches fork
// inside the workers' graphs, and an oversize configuration is refused
// before anything is allocated.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "fhe/core/error.h"
#include "tests/evaluator/gpu/gpu_test_util.h"
#include "workloads/matvec/cuda_matvec.h"
#include "workloads/matvec/matvec_workload.h"

namespace fhe::workloads {
namespace {

using fhe::testing::same_words;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

MatvecConfig small_config(MatvecMethod method, int workers = 1, DiagonalPolicy policy = DiagonalPolicy::batch) {
  return {.dim = 16, .method = method, .policy = policy, .hoist = 4, .batch = 3, .workers = workers, .seed = 5};
}

// A CUDA engine with the Galois keys of every configuration given.
std::unique_ptr<CkksEngine> make_engine(std::initializer_list<MatvecConfig> configs,
                                        const char* preset = kPreset) {
  auto engine = std::make_unique<CkksEngine>(preset, EngineOptions{.device = "cuda:0", .seed = 11});
  std::vector<int> steps;
  for (const MatvecConfig& config : configs) {
    for (int s : matvec_rotation_steps(config)) steps.push_back(s);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  engine->generate_keys(steps);
  return engine;
}

Ciphertext run(CudaMatvec& matvec, const Ciphertext& input, bool graph) {
  matvec.stage(input);
  matvec.launch(graph);
  return matvec.download_result();
}

// `config` on the CPU (within 5e-5 of the product) and on the GPU with each
// worker count: the CPU's words, in graph replays and eager runs.
void expect_cpu_words(CkksEngine& engine, MatvecConfig config, std::initializer_list<int> worker_counts) {
  MatvecWorkload cpu(engine, config);
  const Ciphertext input = cpu.encrypt_input();
  const Ciphertext expected = cpu.run(input);
  EXPECT_LT(cpu.max_abs_error(expected), 5e-5);
  for (int workers : worker_counts) {
    config.workers = workers;
    CudaMatvec gpu(engine, config);
    EXPECT_TRUE(same_words(run(gpu, input, true), expected)) << workers << " workers, graph";
    EXPECT_TRUE(same_words(run(gpu, input, false), expected)) << workers << " workers, eager";
  }
}

class CudaMatvecMethods : public ::testing::TestWithParam<MatvecMethod> {};

TEST_P(CudaMatvecMethods, GraphReplaysEqualEagerOverStagedInputs) {
  FHE_SKIP_WITHOUT_GPU();
  const MatvecConfig config = small_config(GetParam());
  const auto owner = make_engine({config});
  CkksEngine& engine = *owner;
  CudaMatvec matvec(engine, config);
  // Fresh encryptions: different words each time, the same message.
  for (int replay = 0; replay < 3; ++replay) {
    const Ciphertext input = engine.encrypt_message(matvec.problem().input_slots());
    const Ciphertext graph = run(matvec, input, true);
    const Ciphertext eager = run(matvec, input, false);
    EXPECT_TRUE(same_words(graph, eager)) << "replay " << replay;
    EXPECT_LT(matvec.max_abs_error(graph), 5e-5) << "replay " << replay;
  }
}

TEST_P(CudaMatvecMethods, OneWorkerMatchesCpuWorkloadWords) {
  FHE_SKIP_WITHOUT_GPU();
  const MatvecConfig config = small_config(GetParam());
  const auto owner = make_engine({config});
  CkksEngine& engine = *owner;
  CudaMatvec gpu(engine, config);
  MatvecWorkload cpu(engine, config);
  const Ciphertext input = cpu.encrypt_input();
  EXPECT_TRUE(same_words(run(gpu, input, true), cpu.run(input)));
}

TEST_P(CudaMatvecMethods, TwoWorkersAgreeWithOne) {
  FHE_SKIP_WITHOUT_GPU();
  // Loop policy: every term is rescaled alone, so regrouping the sums across
  // workers leaves the words unchanged (batch regroups rescales: only close).
  for (DiagonalPolicy policy : {DiagonalPolicy::loop, DiagonalPolicy::batch}) {
    const MatvecConfig one = small_config(GetParam(), 1, policy), two = small_config(GetParam(), 2, policy);
    const auto owner = make_engine({one});
    CkksEngine& engine = *owner;
    CudaMatvec single(engine, one), pair(engine, two);
    const Ciphertext input = engine.encrypt_message(single.problem().input_slots());
    const Ciphertext a = run(single, input, true), b = run(pair, input, true);
    if (policy == DiagonalPolicy::loop) EXPECT_TRUE(same_words(a, b));
    EXPECT_LT(pair.max_abs_error(b), 5e-5);
    EXPECT_TRUE(same_words(b, run(pair, input, false)));
  }
}

TEST(CudaMatvec, BsgsAgreesWithDiagonal) {
  FHE_SKIP_WITHOUT_GPU();
  const MatvecConfig diagonal = small_config(MatvecMethod::diagonal), bsgs = small_config(MatvecMethod::bsgs);
  const auto owner = make_engine({diagonal, bsgs});
  CkksEngine& engine = *owner;
  CudaMatvec a(engine, diagonal), b(engine, bsgs);
  const Ciphertext input = engine.encrypt_message(a.problem().input_slots());
  const auto x = engine.decrypt_message(run(a, input, true));
  const auto y = engine.decrypt_message(run(b, input, true));
  for (int i = 0; i < diagonal.dim; ++i) EXPECT_NEAR(x[i].real(), y[i].real(), 1e-4) << "slot " << i;
}

// lazy-moddown adds every partial sum before its one ModDown, so one worker
// with all terms per call and several workers with chunks of 4 give the
// CPU's words, in graph replays and eager runs alike (diagonal: 16 terms in
// one launch; BSGS: g = 8, 2 giant steps, whose inner sums one worker forms
// with the baby rotations, lazy_bsgs_fuses_inner_sums, and two workers from
// the stored baby steps).
TEST_P(CudaMatvecMethods, LazyModDownMatchesCpuWordsForAnyWorkerCount) {
  FHE_SKIP_WITHOUT_GPU();
  MatvecConfig one = small_config(GetParam(), 1, DiagonalPolicy::lazy_moddown);
  one.hoist = 16;
  const MatvecConfig three = small_config(GetParam(), GetParam() == MatvecMethod::bsgs ? 2 : 3,
                                          DiagonalPolicy::lazy_moddown);
  const auto owner = make_engine({one});
  CkksEngine& engine = *owner;
  CudaMatvec single(engine, one), triple(engine, three);
  MatvecWorkload cpu(engine, one);
  const Ciphertext input = cpu.encrypt_input();
  const Ciphertext expected = cpu.run(input);
  EXPECT_LT(cpu.max_abs_error(expected), 5e-5);
  EXPECT_TRUE(same_words(run(single, input, true), expected));
  EXPECT_TRUE(same_words(run(triple, input, true), expected));
  EXPECT_TRUE(same_words(run(triple, input, false), expected));
}

// An explicit BSGS baby-step count (g = 2: 7 giant steps; g = 6: 3, the
// last padded with 2 zero diagonals; g = d = 16: no giant rotation; d = 32,
// g = 7: 5 giant steps, the most one pass of fused inner sums takes, the
// last padded with 3) gives the CPU's words under batch (one worker) and
// lazy-moddown (one worker, and two, one of them without a giant step).
TEST(CudaMatvec, ExplicitBabyStepsMatchCpuWords) {
  FHE_SKIP_WITHOUT_GPU();
  for (DiagonalPolicy policy : {DiagonalPolicy::batch, DiagonalPolicy::lazy_moddown}) {
    for (const auto [dim, g] : {std::pair{16, 2}, std::pair{16, 6}, std::pair{16, 16}, std::pair{32, 7}}) {
      MatvecConfig config = small_config(MatvecMethod::bsgs, 1, policy);
      config.dim = dim;
      config.baby_steps = g;
      const auto owner = make_engine({config});
      CkksEngine& engine = *owner;
      CudaMatvec gpu(engine, config);
      MatvecWorkload cpu(engine, config);
      const Ciphertext input = cpu.encrypt_input();
      const Ciphertext expected = cpu.run(input);
      const std::string label =
          std::string(policy_name(policy)) + " d = " + std::to_string(dim) + " g = " + std::to_string(g);
      EXPECT_LT(cpu.max_abs_error(expected), 5e-5) << label;
      EXPECT_EQ(gpu.rotation_count(), (g - 1) + ((dim + g - 1) / g - 1)) << label;
      EXPECT_TRUE(same_words(run(gpu, input, true), expected)) << label;
      if (policy == DiagonalPolicy::lazy_moddown) {
        config.workers = 2;
        CudaMatvec pair(engine, config);
        EXPECT_TRUE(same_words(run(pair, input, true), expected)) << label << ", 2 workers";
      }
    }
  }
}

// More giant steps per worker than one pass over the baby steps serves
// (d = 32, g = 2: 16 giant steps, inner sums in passes of
// kLazyBsgsInnerSumsPerPass; three workers: one pass each) give the CPU's
// words, in graph replays and eager runs.
TEST(CudaMatvec, LazyBsgsInnerSumsOverSeveralPassesMatchCpuWords) {
  FHE_SKIP_WITHOUT_GPU();
  MatvecConfig config = small_config(MatvecMethod::bsgs, 1, DiagonalPolicy::lazy_moddown);
  config.dim = 32;
  config.baby_steps = 2;
  ASSERT_GT(bsgs_giant_steps(config), kLazyBsgsInnerSumsPerPass);
  expect_cpu_words(*make_engine({config}), config, {1, 3});
}

// Single rotations whose key switches take the fused path (5 digits at
// level 0 on this preset; the default small preset has 4) fork their
// ModDown onto the worker evaluator's second stream inside the captured
// matvec: the diagonal method rotating one step at a time (hoist 1), loop
// policy (regrouping across workers keeps the words), gives the CPU's words
// with one worker and two, in graph replays and eager runs.
TEST(CudaMatvec, ForkedKeySwitchesInsideWorkerGraphsMatchCpuWords) {
  FHE_SKIP_WITHOUT_GPU();
  MatvecConfig config = small_config(MatvecMethod::diagonal, 1, DiagonalPolicy::loop);
  config.hoist = 1;
  expect_cpu_words(*make_engine({config}, "test-slots4096-scale40-levels8-int64"), config, {1, 2});
}

// The application suite's backends share one key set: a CudaMatvec on
// another backend's engine that adopted the keys borrows the device copy and
// gives the words of its own upload; a key set it does not hold is refused.
TEST(CudaMatvec, BorrowsTheDeviceKeysOfItsAdoptedKeySet) {
  FHE_SKIP_WITHOUT_GPU();
  const MatvecConfig config = small_config(MatvecMethod::diagonal);
  const auto owner = make_engine({config});
  CkksEngine other(kPreset, {.device = "cuda:0", .ntt_backend = "radix16_compact", .seed = 11});
  other.adopt_keys(*owner);
  CudaMatvec lender(*owner, config);
  CudaMatvec borrower(other, config, {.shared_keys = lender.evaluator().keys()});
  CudaMatvec own(other, config);
  EXPECT_EQ(borrower.evaluator().keys(), lender.evaluator().keys());
  const Ciphertext input = owner->encrypt_message(lender.problem().input_slots());
  EXPECT_TRUE(same_words(run(borrower, input, true), run(own, input, true)));
  const auto stranger = make_engine({config});  // the same words, another key set
  EXPECT_THROW(CudaMatvec(*stranger, config, {.shared_keys = lender.evaluator().keys()}), InvalidArgument);
}

TEST(CudaMatvec, RefusesWhatDoesNotFitNamingASmallerConfiguration) {
  FHE_SKIP_WITHOUT_GPU();
  const MatvecConfig config = small_config(MatvecMethod::diagonal);
  const auto owner = make_engine({config});
  CkksEngine& engine = *owner;
  try {
    CudaMatvec matvec(engine, config, {.assume_free_bytes = 1});
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& error) {
    // One byte holds not even the keys: the refusal says so rather than suggest.
    EXPECT_NE(std::string(error.what()).find("needs"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("largest that fits: none (the keys alone exceed it)"),
              std::string::npos)
        << error.what();
  }
}

TEST(CudaMatvec, LaunchBeforeStageIsRefused) {
  FHE_SKIP_WITHOUT_GPU();
  const MatvecConfig config = small_config(MatvecMethod::diagonal);
  const auto owner = make_engine({config});
  CkksEngine& engine = *owner;
  CudaMatvec matvec(engine, config);
  EXPECT_THROW(matvec.launch(true), InvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Methods, CudaMatvecMethods,
                         ::testing::Values(MatvecMethod::diagonal, MatvecMethod::bsgs),
                         [](const auto& info) { return std::string(method_name(info.param)); });

}  // namespace
}  // namespace fhe::workloads
