// The matvec workload on the CPU at a small preset: both methods and the
// three policies against the Eigen product, worker partitions, BSGS = diagonal.
#include <gtest/gtest.h>

#include <algorithm>

#include "fhe/core/error.h"
#include "workloads/matvec/diagonal_encoding.h"
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
  // A BSGS split's padding past the last diagonal is zero, pre-rotated or not.
  for (int s : {8, 11}) {
    for (double v : p.diagonal_slots(s, 3)) ASSERT_EQ(v, 0.0) << "s = " << s;
  }
  EXPECT_NE(p.diagonal_slots(7, 3), std::vector<double>(32, 0.0));
}

TEST(MatvecProblem, RotationStepSets) {
  MatvecConfig diagonal{.dim = 16};
  EXPECT_EQ(matvec_rotation_steps(diagonal).size(), 15u);
  MatvecConfig bsgs{.dim = 16, .method = MatvecMethod::bsgs};
  EXPECT_EQ(bsgs_baby_steps(bsgs), 4);
  EXPECT_EQ(matvec_rotation_steps(bsgs), (std::vector<int>{1, 2, 3, 4, 8, 12}));
  // 15 baby + 7 giant rotations at d = 128
  EXPECT_EQ(bsgs_baby_steps(MatvecConfig{.dim = 128, .method = MatvecMethod::bsgs}), 16);
  EXPECT_EQ(partition_range(10, 3), (std::vector<std::pair<int, int>>{{0, 3}, {3, 6}, {6, 10}}));
}

TEST(MatvecProblem, HoistChunksSplitARangeIntoRunsOfAtMostHoistSteps) {
  EXPECT_EQ(hoist_chunks(1, 8, 3), (std::vector<std::vector<int>>{{1, 2, 3}, {4, 5, 6}, {7}}));
  EXPECT_EQ(hoist_chunks(0, 4, 64), (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  EXPECT_TRUE(hoist_chunks(5, 5, 2).empty());
}

TEST(MatvecProblem, BabyStepsOverrideTheRule) {
  // Automatic: the smallest power of two g with g * g >= d.
  for (const auto& [dim, g] : std::vector<std::pair<int, int>>{{2, 2}, {8, 4}, {16, 4}, {32, 8}, {128, 16}}) {
    EXPECT_EQ(bsgs_baby_steps(MatvecConfig{.dim = dim, .method = MatvecMethod::bsgs}), g) << "d = " << dim;
  }
  // Lazy ModDown: giant steps cost kLazyGiantStepCost baby steps, so g grows,
  // and need not divide d: at d = 128, g = 26 (5 giant steps, one pass of
  // five fused inner sums) beats g = 32 (4) by 44 to 44.5 in the model; at
  // d = 256 g = 52's five fused sums (71.04) beat the stored baby steps of
  // g = 32 (31 x 1.64 + 7 x 4.5 = 82.34).
  for (const auto& [dim, g] :
       std::vector<std::pair<int, int>>{{2, 2}, {16, 8}, {32, 11}, {64, 16}, {128, 26}, {256, 52}}) {
    const MatvecConfig lazy{.dim = dim, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::lazy_moddown};
    EXPECT_EQ(bsgs_baby_steps(lazy), g) << "lazy, d = " << dim;
  }
  EXPECT_DOUBLE_EQ(lazy_bsgs_cost(128, 26), 25 * kFiveSumBabyStepCost + 4 * kLazyGiantStepCost);
  EXPECT_DOUBLE_EQ(lazy_bsgs_cost(128, 32), 31 + 3 * kLazyGiantStepCost);
  // 8 giant steps: stored baby steps, each multiplied into all 8 inner sums
  // by the products' pass.
  EXPECT_DOUBLE_EQ(lazy_bsgs_cost(128, 16), 15 * (1 + 8 * kStoredBabyStepSumCost) + 7 * kLazyGiantStepCost);
  EXPECT_DOUBLE_EQ(lazy_bsgs_cost(256, 32), 31 * (1 + 8 * kStoredBabyStepSumCost) + 7 * kLazyGiantStepCost);
  // Explicit g: (g - 1) baby + (ceil(d/g) - 1) giant steps; g = d has no
  // giant step; g = 6 splits 16 into giant steps of 6, 6 and 4 diagonals
  // (18 with the last one's two zero diagonals).
  struct Case {
    int g;
    std::vector<int> steps;
  };
  for (const Case& c : {Case{2, {1, 2, 4, 6, 8, 10, 12, 14}}, Case{8, {1, 2, 3, 4, 5, 6, 7, 8}},
                        Case{6, {1, 2, 3, 4, 5, 6, 12}},
                        Case{16, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}}) {
    const MatvecConfig config{.dim = 16, .method = MatvecMethod::bsgs, .baby_steps = c.g};
    const int giants = (16 + c.g - 1) / c.g;
    EXPECT_EQ(bsgs_baby_steps(config), c.g);
    EXPECT_EQ(bsgs_giant_steps(config), giants) << "g = " << c.g;
    EXPECT_EQ(matvec_diagonal_count(config), giants * c.g) << "g = " << c.g;
    EXPECT_EQ(matvec_rotation_count(config), (c.g - 1) + (giants - 1)) << "g = " << c.g;
    EXPECT_EQ(matvec_rotation_steps(config), c.steps) << "g = " << c.g;
  }
  EXPECT_EQ(matvec_diagonal_count(MatvecConfig{.dim = 16}), 16);
  EXPECT_EQ(bsgs_baby_steps(MatvecConfig{.dim = 128, .method = MatvecMethod::bsgs, .baby_steps = 32}), 32);
  EXPECT_EQ(matvec_rotation_count(MatvecConfig{.dim = 128, .method = MatvecMethod::bsgs, .baby_steps = 32}),
            31 + 3);
}

// The lazy BSGS's cost model against the splits an H100 ran (radix16, graph
// medians of 7, the first of two rounds; results/h100/session73/call3 at
// d = 128, results/h100/session74/call1-2 at d = 64 and 256): where two
// splits measured more than 2 % apart, the model orders them the same way,
// and its pick is the fastest split measured. A refit that contradicts the
// evidence fails here.
TEST(MatvecProblem, LazyBsgsCostOrdersTheMeasuredSplits) {
  struct Measured {
    int g;
    double ms;
  };
  const std::vector<std::pair<int, std::vector<Measured>>> runs = {
      {64, {{11, 5.154}, {16, 4.162}, {22, 4.255}}},
      {128, {{20, 7.314}, {23, 7.074}, {26, 5.858}, {29, 6.217}, {32, 5.915}}},
      {256, {{32, 10.498}, {43, 10.777}, {52, 9.401}, {57, 10.019}, {64, 10.070}}}};
  for (const auto& [dim, splits] : runs) {
    for (const Measured& x : splits) {
      for (const Measured& y : splits) {
        if (x.ms * 1.02 < y.ms) {
          EXPECT_LT(lazy_bsgs_cost(dim, x.g), lazy_bsgs_cost(dim, y.g))
              << "d = " << dim << ": g = " << x.g << " ran faster than g = " << y.g;
        }
      }
    }
    const auto fastest = std::min_element(splits.begin(), splits.end(),
                                          [](const Measured& x, const Measured& y) { return x.ms < y.ms; });
    const MatvecConfig lazy{.dim = dim, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::lazy_moddown};
    EXPECT_EQ(bsgs_baby_steps(lazy), fastest->g) << "d = " << dim;
  }
}

// validate(config) must refuse with an InvalidArgument whose text contains `expected`.
void expect_invalid(const MatvecConfig& config, const std::string& expected) {
  try {
    validate(config, 2048);
    ADD_FAILURE() << "accepted; expected: " << expected;
  } catch (const fhe::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(MatvecConfig, BabyStepsMustBeUpToTheDimensionAndBsgsOnly) {
  MatvecConfig config{.dim = 16, .method = MatvecMethod::bsgs};
  EXPECT_NO_THROW(validate(config, 2048));  // none given: the automatic g
  for (int g : {2, 3, 4, 6, 16}) {
    config.baby_steps = g;
    EXPECT_NO_THROW(validate(config, 2048)) << "g = " << g;
  }
  for (int g : {0, 1, 17, 32, -4}) {  // a given 0 is no g either (not the automatic one)
    config.baby_steps = g;
    expect_invalid(config, "--baby-steps " + std::to_string(g) + " must be in [2, 16]");
  }
  expect_invalid(MatvecConfig{.dim = 16, .method = MatvecMethod::diagonal, .baby_steps = 4},
                 "--baby-steps applies only to --method bsgs");
}

TEST(MatvecWorkload, ExplicitBabyStepsMeetToleranceUnderBatchAndLazyModDown) {
  // g = 2 (7 giant steps), 6 (3, the last of 4 diagonals and 2 zero ones),
  // 8 (1 giant step) and 16 = d (no giant rotation; with 2 workers one of
  // them has no giant step at all).
  std::vector<MatvecConfig> configs;
  for (DiagonalPolicy policy : {DiagonalPolicy::batch, DiagonalPolicy::lazy_moddown}) {
    for (int g : {2, 6, 8, 16}) {
      configs.push_back({.dim = 16, .method = MatvecMethod::bsgs, .policy = policy, .hoist = 4, .baby_steps = g,
                         .batch = 4, .workers = g == 16 ? 2 : 1});
    }
  }
  auto engine = engine_for(configs);
  for (const auto& config : configs) {
    MatvecWorkload workload(*engine, config);
    const int g = *config.baby_steps;
    EXPECT_EQ(workload.rotation_count(), (g - 1) + ((16 + g - 1) / g - 1));
    const auto result = workload.run(workload.encrypt_input());
    EXPECT_LE(workload.max_abs_error(result), 5e-5)
        << policy_name(config.policy) << " g = " << *config.baby_steps;
  }
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

// The threads change nothing: the listed diagonals arrive in the listed
// order with the words of encoding one at a time (BSGS pre-rotated by the
// giant step; lazy-moddown over QP).
TEST(MatvecProblem, ParallelDiagonalEncodingGivesTheSerialWordsInTheListedOrder) {
  // The oracle's CPU plan and a compact backend's (its own local blocks).
  for (const auto& [backend, config] :
       {std::pair{"radix2_indexed", MatvecConfig{.dim = 32, .method = MatvecMethod::bsgs}},
        std::pair{"radix16_compact", MatvecConfig{.dim = 32, .policy = DiagonalPolicy::lazy_moddown}}}) {
    const fhe::CkksEngine engine(kPreset, fhe::EngineOptions{.ntt_backend = backend, .seed = 3});
    const MatvecProblem problem = make_matvec_problem(config.dim, engine.slot_count(), config.seed);
    const int g = bsgs_baby_steps(config);
    const bool bsgs = config.method == MatvecMethod::bsgs;
    std::vector<int> listed;
    for (int s = config.dim - 1; s >= 0; s -= 3) listed.push_back(s);  // descending, some left out
    std::vector<int> seen;
    encode_diagonals(engine, problem, config, listed, [&](int s, fhe::Plaintext diagonal) {
      seen.push_back(s);
      const std::vector<double> slots = problem.diagonal_slots(s, bsgs ? (s / g) * g : 0);
      const fhe::Plaintext serial = config.policy == DiagonalPolicy::lazy_moddown ? engine.encode_extended(slots)
                                                                                  : engine.encode(slots);
      EXPECT_EQ(diagonal, serial) << "diagonal " << s << ", " << method_name(config.method);
    });
    EXPECT_EQ(seen, listed) << method_name(config.method);
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
