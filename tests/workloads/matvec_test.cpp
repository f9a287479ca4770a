// The matvec workload on the CPU at a small preset: both methods and the
// three policies against the Eigen product, worker partitions, BSGS = diagonal.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "workloads/matvec/matvec_problem.h"
#include "workloads/matvec/matvec_workload.h"

namespace {

using namespace fhe::workloads;

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

std::unique_ptr<fhe::CkksEngine> engine_for(const std::vector<MatvecConfig>& configs) {
  auto engine = std::make_unique<fhe::CkksEngine>(kPreset, fhe::EngineOptions{.seed = 3});
  std::vector<int> steps;
  for (const auto& c : configs) {
    for (int s : matvec_rotation_steps(c)) steps.push_back(s);
  }
  engine->generate_keys(steps);
  return engine;
}

TEST(MatvecProblem, DiagonalsReproduceTheProduct) {
  // Plain arithmetic on the tiled slot vectors: sum_s diag_s * rot(x, s) = Mx.
  const auto p = make_matvec_problem(8, 32, 5);
  const auto x = p.input_slots();
  std::vector<double> y(32, 0.0);
  for (int s = 0; s < 8; ++s) {
    const auto diag = p.diagonal_slots(s);
    for (int t = 0; t < 32; ++t) y[t] += diag[t] * x[(t + s) % 32];
  }
  EXPECT_LT(p.max_abs_error(y), 1e-12);
  EXPECT_GT(p.expected.norm(), 0.1);
}

TEST(MatvecProblem, RotationStepSets) {
  MatvecConfig diagonal{.dim = 16};
  EXPECT_EQ(matvec_rotation_steps(diagonal).size(), 15u);
  MatvecConfig bsgs{.dim = 16, .method = MatvecMethod::bsgs};
  EXPECT_EQ(bsgs_baby_steps(16), 4);
  EXPECT_EQ(matvec_rotation_steps(bsgs), (std::vector<int>{1, 2, 3, 4, 8, 12}));
  EXPECT_EQ(bsgs_baby_steps(128), 16);  // 15 baby + 7 giant rotations at d = 128
  EXPECT_EQ(partition_range(10, 3), (std::vector<std::pair<int, int>>{{0, 3}, {3, 6}, {6, 10}}));
}

TEST(MatvecWorkload, EveryMethodAndPolicyMeetsTolerance) {
  std::vector<MatvecConfig> configs = {
      {.dim = 16, .method = MatvecMethod::diagonal, .policy = DiagonalPolicy::batch, .hoist = 5, .batch = 4},
      {.dim = 16, .method = MatvecMethod::diagonal, .policy = DiagonalPolicy::loop, .hoist = 16},
      {.dim = 16, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::batch, .hoist = 2},
      {.dim = 16, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::loop, .workers = 2},
      {.dim = 16, .method = MatvecMethod::diagonal, .policy = DiagonalPolicy::lazy_moddown, .hoist = 6},
      {.dim = 16, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::lazy_moddown, .hoist = 3},
  };
  auto engine = engine_for(configs);
  std::vector<std::vector<std::complex<double>>> decrypted;
  for (const auto& config : configs) {
    MatvecWorkload workload(*engine, config);
    const auto input = workload.encrypt_input();
    const auto result = workload.run(input);
    EXPECT_LE(workload.max_abs_error(result), 5e-5)
        << method_name(config.method) << "/" << policy_name(config.policy);
    decrypted.push_back(engine->decrypt_message(result));
  }
  // BSGS and the diagonal method give the same product (up to CKKS noise).
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(decrypted[0][i].real(), decrypted[2][i].real(), 1e-4);
  // So does the one-ModDown policy, with either method.
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(decrypted[0][i].real(), decrypted[4][i].real(), 1e-4);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(decrypted[0][i].real(), decrypted[5][i].real(), 1e-4);
  EXPECT_EQ(MatvecWorkload(*engine, configs[0]).rotation_count(), 15);
  EXPECT_EQ(MatvecWorkload(*engine, configs[2]).rotation_count(), 6);  // 3 baby + 3 giant
}

TEST(MatvecWorkload, WorkersChangeNothingUnderTheLoopPolicy) {
  // Loop rescales every term alone, so partial sums are exact and any
  // partition of the steps gives the same words.
  MatvecConfig one{.dim = 16, .policy = DiagonalPolicy::loop, .hoist = 4, .workers = 1};
  MatvecConfig three = one;
  three.workers = 3;
  auto engine = engine_for({one});
  MatvecWorkload a(*engine, one), b(*engine, three);
  const auto input = a.encrypt_input();
  EXPECT_EQ(a.run(input), b.run(input));
}

TEST(MatvecWorkload, WorkersAndChunksChangeNothingUnderLazyModDown) {
  // Everything before the one ModDown is exact modular arithmetic (BSGS:
  // the giant steps' sums before ModDown add alike across workers).
  for (MatvecMethod method : {MatvecMethod::diagonal, MatvecMethod::bsgs}) {
    const MatvecConfig one{
        .dim = 16, .method = method, .policy = DiagonalPolicy::lazy_moddown, .hoist = 16, .workers = 1};
    MatvecConfig other = one;
    other.workers = method == MatvecMethod::bsgs ? 2 : 3;
    other.hoist = 2;
    auto engine = engine_for({one});
    MatvecWorkload a(*engine, one), b(*engine, other);
    const auto input = a.encrypt_input();
    const auto result = a.run(input);
    EXPECT_EQ(result, b.run(input)) << method_name(method);
    EXPECT_EQ(result.level, 1) << method_name(method);  // one rescale
  }
}

TEST(MatvecWorkload, RefusesBadConfigurationsAndMissingKeys) {
  auto engine = engine_for({MatvecConfig{.dim = 4}});
  EXPECT_THROW(MatvecWorkload(*engine, MatvecConfig{.dim = 12}), fhe::InvalidArgument);
  EXPECT_THROW(MatvecWorkload(*engine, MatvecConfig{.dim = 4096}), fhe::InvalidArgument);
  EXPECT_THROW(MatvecWorkload(*engine, MatvecConfig{.dim = 4, .hoist = 0}), fhe::InvalidArgument);
  EXPECT_THROW(MatvecWorkload(*engine, MatvecConfig{.dim = 8}), fhe::InvalidArgument);  // no key 4..7
  EXPECT_THROW(parse_method("dense"), fhe::InvalidArgument);
  EXPECT_THROW(parse_policy("stream"), fhe::InvalidArgument);
  EXPECT_EQ(parse_policy("lazy-moddown"), DiagonalPolicy::lazy_moddown);
}

}  // namespace
