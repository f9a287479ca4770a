// The application suite on the CPU at a small test preset: the matvec
// (diagonal and BSGS) and key switching at two levels, end to end through
// the request, the shared harness, decision and evidence writer; the BSGS
// and diagonal products agree; an injected fault (the test-only
// --inject-fault) is caught by the gate, excluded and its input saved;
// bad requests are refused before any work.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "fhe/core/error.h"
#include "recommend/recommend_run.h"
#include "recommend/statistics.h"
#include "tests/recommend/test_support.h"
#include "tests/support/process.h"
#include "workloads/memory_plan.h"

namespace fhelium {
namespace {

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";
constexpr int kRuns = 2;
constexpr int kRepetitions = 2;

RecommendOptions application_options(const std::string& workload, const std::filesystem::path& output) {
  RecommendOptions options;
  options.suite = "application";
  options.preset = kPreset;
  options.device = "cpu";
  options.backends = {"radix2_indexed", "radix2_compact_group8_smem8", "radix4_compact"};
  options.warmup = 0;
  options.runs = kRuns;
  options.repetitions = kRepetitions;
  options.seed = 11;
  options.output = output.string();
  options.application.workload = workload;
  options.application.dim = 16;
  options.application.hoist = 8;
  options.application.batch = 4;
  return options;
}

nlohmann::json read_json(const std::filesystem::path& path) {
  return nlohmann::json::parse(fhelium::testing::read_text(path));
}

nlohmann::json run(const RecommendOptions& options) {
  const RecommendPlan plan = resolve_request(options);
  auto suite = make_suite(plan);
  return run_recommendation(plan, *suite, {"test"});
}

// The fault --inject-fault plants reaches the gate: the backend is
// excluded from evidence[] and rows[], named in the evidence, and its
// failing input is saved beside the output.
void expect_excluded(const nlohmann::json& doc, const std::filesystem::path& output, const std::string& faulty,
                     std::size_t operations) {
  const auto backends = doc["metadata"]["backends"].get<std::vector<std::string>>();
  EXPECT_EQ(doc["metadata"]["workload"]["injected_faults"], nlohmann::json::array({faulty}));
  ASSERT_EQ(doc["correctness"].size(), backends.size());
  for (const auto& c : doc["correctness"]) {
    const bool is_faulty = c["backend"] == faulty;
    EXPECT_EQ(c["passed"].get<bool>(), !is_faulty) << c.dump();
    EXPECT_EQ(c["checks"].contains("injected_fault"), is_faulty);
    ASSERT_FALSE(c["checks"]["max_abs_error"].empty()) << c.dump();
    for (const auto& [op, error] : c["checks"]["max_abs_error"].items()) {
      if (is_faulty) {
        EXPECT_GT(error.get<double>(), 1.0) << op;  // far outside any tolerance
      } else {
        EXPECT_LE(error.get<double>(), 1e-4) << op;
      }
    }
    if (is_faulty) {
      const std::string summary = c["summary"];
      EXPECT_NE(summary.find("exceeds the limit"), std::string::npos) << summary;
      EXPECT_NE(summary.find("(test-only injected fault)"), std::string::npos) << summary;
      EXPECT_EQ(c["failing_input_file"], failing_input_path(output, faulty).string());
    }
  }
  EXPECT_EQ(doc["evidence"].size(), (backends.size() - 1) * operations * kRepetitions);
  for (const auto& e : doc["evidence"]) EXPECT_NE(e["backend"], faulty);
  ASSERT_EQ(doc["rows"].size(), backends.size() - 1);
  for (const auto& row : doc["rows"]) EXPECT_NE(row["backend"], faulty);
  EXPECT_NE(doc["recommendation"]["recommended_backend"], faulty);
  EXPECT_NE(doc["recommendation"]["numerical_winner"], faulty);
}

// The gate, the evidence and the decision agree with each other: every
// backend passed within `limit`, every series holds its raw samples, each
// row's medians, ratios and score follow from evidence[] by the documented
// rules, and the rows are ranked by score with the winner first.
void expect_consistent(const nlohmann::json& doc, const std::vector<std::string>& ops, double limit) {
  const auto backends = doc["metadata"]["backends"].get<std::vector<std::string>>();
  ASSERT_EQ(doc["metadata"]["operations"].get<std::vector<std::string>>(), ops);
  ASSERT_EQ(doc["correctness"].size(), backends.size());
  for (const auto& c : doc["correctness"]) {
    EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
    EXPECT_EQ(c["checks"]["abort_limit"].get<double>(), limit);
    for (const std::string& op : ops) {
      const double error = c["checks"]["max_abs_error"].at(op).get<double>();
      EXPECT_GT(error, 0.0) << op;  // CKKS is approximate: exactly 0 would mean nothing was compared
      EXPECT_LE(error, limit) << op;
    }
  }
  ASSERT_EQ(doc["evidence"].size(), backends.size() * ops.size() * kRepetitions);
  std::map<std::pair<std::string, std::string>, std::vector<double>> repetition_medians;
  for (const auto& e : doc["evidence"]) {
    const auto samples = e["samples_ms"].get<std::vector<double>>();
    ASSERT_EQ(samples.size(), static_cast<std::size_t>(kRuns));
    for (double s : samples) EXPECT_GT(s, 0.0);
    EXPECT_DOUBLE_EQ(e["median_ms"].get<double>(), median(samples));
    const std::pair<std::string, std::string> key = {e["backend"], e["operation"]};
    repetition_medians[key].push_back(median(samples));
  }
  const auto& rows = doc["rows"];
  ASSERT_EQ(rows.size(), backends.size());
  std::map<std::string, double> best_ms;
  for (const std::string& op : ops) {
    best_ms[op] = INFINITY;
    for (const std::string& b : backends)
      best_ms[op] = std::min(best_ms[op], median(repetition_medians[{b, op}]));
  }
  const nlohmann::json weights = doc["analysis"]["scoring"]["weights"];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    EXPECT_EQ(row["rank"].get<std::size_t>(), i + 1);
    double log_score = 0.0;
    for (const std::string& op : ops) {
      const double ms = median(repetition_medians[{row["backend"].get<std::string>(), op}]);
      EXPECT_DOUBLE_EQ(row["median_ms"][op].get<double>(), ms);
      EXPECT_NEAR(row["ratio"][op].get<double>(), ms / best_ms[op], 1e-12);
      log_score += weights[op].get<double>() * std::log(ms / best_ms[op]);
    }
    EXPECT_NEAR(row["score"].get<double>(), std::exp(log_score), 1e-9);
    if (i > 0) EXPECT_LE(rows[i - 1]["score"].get<double>(), row["score"].get<double>());
  }
  const auto& r = doc["recommendation"];
  EXPECT_EQ(r["numerical_winner"], rows[0]["backend"]);
  EXPECT_EQ(r["runner_up"], rows[1]["backend"]);
  EXPECT_NEAR(r["runner_up_margin_pct"].get<double>(),
              100.0 * (rows[1]["score"].get<double>() / rows[0]["score"].get<double>() - 1.0), 1e-9);
  const auto near = r["near_tied_backends"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(near.begin(), near.end(), r["recommended_backend"].get<std::string>()), near.end());
  EXPECT_EQ(r["confidence"], "low");  // two repetitions
  EXPECT_EQ(doc["metadata"]["timer"], "steady_clock");
  EXPECT_NE(doc["metadata"]["timed_boundary"]["synchronisation"].get<std::string>().find("steady_clock"),
            std::string::npos);
}

std::vector<double> decrypted_output(const nlohmann::json& doc, std::size_t backend) {
  const auto& details = doc["correctness"][backend]["checks"]["details"];
  return details.begin().value()["decrypted_output"].get<std::vector<double>>();
}

TEST(ApplicationSuite, MatvecDiagonalAndBsgsRankBackendsAndAgree) {
  test::TempDir dir;
  const nlohmann::json diagonal = run(application_options("matvec", dir.path() / "diagonal.json"));
  expect_consistent(diagonal, {"matvec_16x16_diagonal_batch"}, 5e-5);
  RecommendOptions bsgs_options = application_options("matvec", dir.path() / "bsgs.json");
  bsgs_options.application.method = "bsgs";
  const nlohmann::json bsgs = run(bsgs_options);
  expect_consistent(bsgs, {"matvec_16x16_bsgs_batch"}, 5e-5);

  const std::string summary = diagonal["correctness"][0]["summary"];
  EXPECT_EQ(summary.rfind("decryption error within 5e-5 (worst ", 0), 0u) << summary;

  // The configuration, memory plan and boundary are in the evidence.
  const auto& meta = diagonal["metadata"];
  EXPECT_EQ(meta["workload"]["name"], "matvec");
  EXPECT_EQ(meta["workload"]["dim"], 16);
  EXPECT_EQ(meta["workload"]["hoist"], 8);
  EXPECT_EQ(meta["workload"]["batch"], 4);
  EXPECT_EQ(meta["workload"]["graph"], "off");
  EXPECT_EQ(meta["workload"]["problem_seed"], 11);
  EXPECT_EQ(meta["workload"]["galois_keys"], 15);
  EXPECT_EQ(bsgs["metadata"]["workload"]["galois_keys"], 6);  // 3 baby + 3 giant steps
  EXPECT_TRUE(meta["workload"]["baby_steps"].is_null());       // diagonal method
  EXPECT_EQ(bsgs["metadata"]["workload"]["baby_steps"], 4);    // the automatic g at d = 16
  const auto& preset = fhe::preset_by_name(kPreset);
  const auto plan =
      fhe::workloads::plan_matvec_memory(preset, {.dim = 16, .hoist = 8, .batch = 4}, fhe::DeviceKind::cpu);
  const std::size_t per_backend = plan.total_bytes(), keys = plan.bytes_of("keys");
  EXPECT_GT(keys, 0u);
  EXPECT_EQ(meta["memory_plan"]["per_backend_bytes"].get<std::size_t>(), per_backend);
  EXPECT_EQ(meta["memory_plan"]["backends_held"], 3);
  // One key set serves the three backends (adopt_keys).
  EXPECT_EQ(meta["memory_plan"]["shared_bytes"].get<std::size_t>(), keys);
  EXPECT_EQ(meta["memory_plan"]["total_bytes"].get<std::size_t>(), keys + 3 * (per_backend - keys));
  EXPECT_EQ(meta["memory_plan"]["checked_against"], "the host");
  const std::string includes = meta["timed_boundary"]["includes"][0];
  EXPECT_EQ(includes.rfind("matvec_16x16_diagonal_batch: the whole 16 x 16 matvec from the staged input", 0),
            0u)
      << includes;
  EXPECT_NE(includes.find("15 rotations hoisted in chunks of 8"), std::string::npos) << includes;
  EXPECT_NE(includes.find("one rescale per 4 summed products of a worker"), std::string::npos) << includes;
  const std::string bsgs_includes = bsgs["metadata"]["timed_boundary"]["includes"][0];
  EXPECT_NE(bsgs_includes.find("3 baby-step rotations"), std::string::npos) << bsgs_includes;
  EXPECT_NE(bsgs_includes.find("3 giant-step rotations"), std::string::npos) << bsgs_includes;
  EXPECT_NE(bsgs_includes.find("summed products of an inner sum"), std::string::npos) << bsgs_includes;
  const std::string excludes = meta["timed_boundary"]["excludes"].dump();
  for (const char* part : {"key generation", "encoding of the 16 diagonals", "encryption of the input",
                           "decryption and the error check"})
    EXPECT_NE(excludes.find(part), std::string::npos) << part;

  // Same keys, seed and bit-exact NTTs: every backend decrypts to the same
  // words; BSGS and the diagonal method compute the same product.
  const std::vector<double> reference = decrypted_output(diagonal, 0);
  ASSERT_EQ(reference.size(), 16u);
  for (std::size_t b = 1; b < 3; ++b) EXPECT_EQ(decrypted_output(diagonal, b), reference) << b;
  const std::vector<double> bsgs_output = decrypted_output(bsgs, 0);
  const auto expected = diagonal["correctness"][0]["checks"]["details"]["matvec_16x16_diagonal_batch"]
                                ["expected_output"].get<std::vector<double>>();
  ASSERT_EQ(bsgs_output.size(), 16u);
  double largest = 0.0;
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_NEAR(bsgs_output[i], reference[i], 1e-5) << i;
    largest = std::max(largest, std::abs(expected[i]));
  }
  EXPECT_GT(largest, 0.1);  // a real product, not zeros agreeing with zeros
}

TEST(ApplicationSuite, KeySwitchAtTwoLevelsWithWeights) {
  test::TempDir dir;
  RecommendOptions options = application_options("keyswitch", dir.path() / "keyswitch.json");
  options.application.levels = "3,0";
  options.application.step = 3;
  options.backends = {"radix2_indexed", "radix2_compact_group16_smem8"};
  options.weights = "rotate@level3=2";
  const nlohmann::json doc = run(options);
  expect_consistent(doc, {"relinearize@level0", "rotate@level0", "relinearize@level3", "rotate@level3"}, 1e-4);
  EXPECT_DOUBLE_EQ(doc["analysis"]["scoring"]["weights"]["rotate@level3"].get<double>(), 0.4);
  const std::string summary = doc["correctness"][0]["summary"];
  EXPECT_EQ(summary.rfind("decryption error within 1e-4 (worst ", 0), 0u) << summary;
  const auto& meta = doc["metadata"];
  EXPECT_EQ(meta["workload"]["levels"].get<std::vector<int>>(), (std::vector<int>{0, 3}));
  EXPECT_EQ(meta["workload"]["rotation_step"], 3);
  const auto& preset = fhe::preset_by_name(kPreset);
  EXPECT_EQ(meta["memory_plan"]["per_backend_bytes"].get<std::size_t>(),
            fhe::workloads::plan_keyswitch_memory(preset, {0, 3}, fhe::DeviceKind::cpu).total_bytes());
  // Ids 3..6 of the 7 Q rows are active at level 3; digits of |P| = 2 scale
  // primes and the base prime alone ({0, 1}, {2, 3}, {4, 5}, {6}) keep three.
  const std::string level3 = meta["timed_boundary"]["includes"][3];
  EXPECT_EQ(level3, "rotate@level3: rotation by 3 slot(s) with its Galois key at level 3 (4 Q rows in 3 "
                    "key-switching digits; key switching adds 2 P rows)")
      << level3;
}

TEST(ApplicationSuite, KeySwitchInjectedFaultIsExcludedAndItsInputSaved) {
  test::TempDir dir;
  const auto output = dir.path() / "keyswitch.json";
  RecommendOptions options = application_options("keyswitch", output);
  options.application.levels = "0,2";
  options.application.inject_fault = {"radix2_compact_group8_smem8"};
  const nlohmann::json doc = run(options);
  expect_excluded(doc, output, "radix2_compact_group8_smem8", 4);
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"keyswitch.failing-radix2_compact_group8_smem8.json", "keyswitch.json"}));

  const nlohmann::json saved = read_json(failing_input_path(output, "radix2_compact_group8_smem8"));
  EXPECT_EQ(saved["suite"], "application");
  EXPECT_EQ(saved["backend"], "radix2_compact_group8_smem8");
  EXPECT_EQ(saved["device"], "cpu");
  EXPECT_EQ(saved["seed"], 11);
  EXPECT_EQ(saved["preset"], kPreset);
  EXPECT_EQ(saved["workload"]["levels"], nlohmann::json::array({0, 2}));
  EXPECT_NE(saved["recipe"]["inputs"].get<std::string>().find("std::mt19937_64(seed + 101)"), std::string::npos);
  EXPECT_TRUE(saved["checks"].contains("injected_fault"));
  // The worst slot of each operation: decrypted far from expected.
  const auto& worst = saved["checks"]["details"][saved["worst_operation"].get<std::string>()];
  const auto decrypted = worst["decrypted"].get<std::vector<double>>();
  const auto expected = worst["expected"].get<std::vector<double>>();
  ASSERT_EQ(decrypted.size(), 2u);
  EXPECT_GT(std::hypot(decrypted[0] - expected[0], decrypted[1] - expected[1]), 1.0);
  EXPECT_LE(std::abs(expected[0]), 1.0);
  EXPECT_TRUE(saved["provenance"].contains("argv"));
}

TEST(ApplicationSuite, MatvecInjectedFaultIsExcluded) {
  test::TempDir dir;
  const auto output = dir.path() / "matvec.json";
  RecommendOptions options = application_options("matvec", output);
  options.application.inject_fault = {"radix2_indexed"};
  const nlohmann::json doc = run(options);
  expect_excluded(doc, output, "radix2_indexed", 1);
  // The saved outputs show the wrong product next to the right one.
  const nlohmann::json saved = read_json(failing_input_path(output, "radix2_indexed"));
  const auto& details = saved["checks"]["details"]["matvec_16x16_diagonal_batch"];
  EXPECT_NE(details["decrypted_output"], details["expected_output"]);
}

TEST(ApplicationSuite, NoRecommendationWhenEveryCandidateIsWrong) {
  test::TempDir dir;
  RecommendOptions options = application_options("keyswitch", dir.path() / "keyswitch.json");
  options.backends = {"radix2_indexed", "radix4_compact"};
  options.application.inject_fault = {"radix4_compact", "radix2_indexed", "radix4_compact"};
  const nlohmann::json doc = run(options);
  EXPECT_EQ(doc["metadata"]["workload"]["injected_faults"],
            nlohmann::json::array({"radix4_compact", "radix2_indexed"}));  // unique, in order
  ASSERT_EQ(doc["correctness"].size(), 2u);  // both ran and failed: not a run that did nothing
  for (const auto& c : doc["correctness"]) EXPECT_FALSE(c["passed"].get<bool>()) << c.dump();
  EXPECT_TRUE(doc["evidence"].empty());
  EXPECT_TRUE(doc["rows"].empty());
  EXPECT_TRUE(doc["recommendation"].is_null());  // the command exits 1 on this
  EXPECT_EQ(dir.entries().size(), 3u);           // the evidence and two failing inputs
}

TEST(ApplicationSuite, MatvecBabyStepsReachTheConfigurationAndTheEvidence) {
  RecommendOptions options = application_options("matvec", "never.json");
  options.application.method = "bsgs";
  options.application.baby_steps = 8;
  options.application.given = {"--baby-steps"};
  const ApplicationWorkload workload = resolve_application_workload(
      options.application, fhe::preset_by_name(kPreset), fhe::DeviceSpec{fhe::DeviceKind::cpu, 0});
  EXPECT_EQ(workload.matvec.baby_steps, 8);
  const nlohmann::json json = workload_to_json(workload);
  EXPECT_EQ(json["baby_steps"], 8);
  EXPECT_EQ(json["galois_keys"], 8);  // 7 baby + 1 giant step
}

// A request the application suite refuses: InvalidArgument naming `expected`.
void expect_refused(const RecommendOptions& options, const std::string& expected) {
  try {
    resolve_request(options);
    ADD_FAILURE() << "accepted; expected a refusal naming: " << expected;
  } catch (const fhe::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(ApplicationSuite, BadRequestsAreRefusedBeforeAnyWork) {
  test::TempDir dir;
  const auto base = [&](const std::string& workload) {
    return application_options(workload, dir.path() / "never.json");
  };
  expect_refused(base(""), "--suite application needs --workload matvec or keyswitch");
  expect_refused(base("dense"), "unknown workload 'dense'");
  auto options = base("matvec");
  options.application.dim = 12;
  expect_refused(options, "must be a power of two");
  options = base("matvec");
  options.application.hoist = 0;
  expect_refused(options, "--hoist must be at least 1");
  options = base("matvec");
  options.application.method = "bsgs";
  options.application.baby_steps = 32;
  options.application.given = {"--baby-steps"};
  expect_refused(options, "--baby-steps 32 must be in [2, 16]");
  options.application.baby_steps = 0;  // given: not the automatic g
  expect_refused(options, "--baby-steps 0 must be in [2, 16]");
  options = base("matvec");
  options.application.graph = "on";
  expect_refused(options, "--graph on needs a CUDA device");
  options = base("matvec");
  options.application.given = {"--levels"};
  expect_refused(options, "--levels does not apply to --workload matvec");
  options = base("keyswitch");
  options.application.given = {"--dim"};
  expect_refused(options, "--dim does not apply to --workload keyswitch");
  options = base("keyswitch");
  options.application.levels = "0,6";
  expect_refused(options, "level 6 is outside [0, 5]");
  options = base("keyswitch");
  options.application.step = -2048;
  expect_refused(options, "rotation step -2048 is a multiple of the 2048 slots");
  options = base("keyswitch");
  options.application.graph = "on";
  expect_refused(options, "--graph on needs a CUDA device");
  options = base("keyswitch");
  options.application.inject_fault = {"radix3_compact"};
  expect_refused(options, "unknown NTT backend 'radix3_compact'");
  options = base("keyswitch");
  options.suite = "kernel";
  options.application.workload = "";
  options.application.inject_fault = {"radix4_compact"};
  expect_refused(options, "--inject-fault applies only to --suite application");
  options = base("matvec");
  options.level = 1;
  expect_refused(options, "--level does not apply to --suite application");
  options = base("matvec");
  options.weights = "matvec=2";
  expect_refused(options, "unknown operation 'matvec' (operations: matvec_16x16_diagonal_batch)");
  options = base("matvec");
  options.suite = "kernel";
  expect_refused(options, "--workload applies only to --suite application");
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ApplicationSuite, MemoryBeyondTheDeviceIsRefusedWithWhatWouldFit) {
  RecommendOptions options;
  options.suite = "application";
  options.preset = "slots65536-scale40-levels72-int64";
  options.device = "cpu";
  options.application.workload = "matvec";
  options.application.dim = 1024;  // about 2 TiB of Galois keys per backend
  try {
    resolve_request(options);
    FAIL() << "expected a refusal";
  } catch (const fhe::DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("matvec 1024x1024 at slots65536-scale40-levels72-int64 needs keys"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("backends are held at once"), std::string::npos) << message;
    EXPECT_NE(message.find("largest that fits: "), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace fhelium
