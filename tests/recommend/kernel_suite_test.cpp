// The kernel suite end to end on the CPU at a small preset, and its
// correctness gate catching an injected fault (a plan wrapper that corrupts
// one output word; only tests can build such a suite).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "recommend/document_scoring.h"
#include "recommend/kernel_suite.h"
#include "recommend/recommend_run.h"
#include "recommend/ranked_table.h"
#include "recommend/report_builder.h"
#include "tests/recommend/test_support.h"

namespace fhelium {
namespace {

constexpr const char* kPreset = "test-slots2048-scale40-levels6-int64";

RecommendOptions small_run(const std::filesystem::path& output) {
  RecommendOptions options;
  options.preset = kPreset;
  options.device = "cpu";
  options.warmup = 1;
  options.runs = 3;
  options.repetitions = 2;
  options.seed = 2024;
  options.output = output.string();
  return options;
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Delegates to a real plan; adds 1 (mod q) to one word of every forward
// output, or of every inverse output.
class CorruptingPlan : public fhe::ntt::NttPlan {
 public:
  explicit CorruptingPlan(std::unique_ptr<fhe::ntt::NttPlan> inner, bool inverse_only = false)
      : inner_(std::move(inner)), inverse_only_(inverse_only) {}
  const fhe::ntt::BackendInfo& backend() const override { return inner_->backend(); }
  fhe::DeviceSpec device() const override { return inner_->device(); }
  int log_n() const override { return inner_->log_n(); }
  std::size_t row_count() const override { return inner_->row_count(); }
  const std::vector<std::uint64_t>& moduli() const override { return inner_->moduli(); }
  const fhe::ntt::NttSchedule& schedule() const override { return inner_->schedule(); }
  std::vector<fhe::ntt::LaunchDescription> describe(fhe::ntt::RowRange rows, bool forward) const override {
    return inner_->describe(rows, forward);
  }
  void forward(std::uint64_t* data, fhe::ntt::RowRange rows, fhe::ntt::StreamHandle stream) const override {
    inner_->forward(data, rows, stream);
    if (!inverse_only_) corrupt(data, rows);
  }
  void inverse(std::uint64_t* data, fhe::ntt::RowRange rows, fhe::ntt::StreamHandle stream) const override {
    inner_->inverse(data, rows, stream);
    if (inverse_only_) corrupt(data, rows);
  }

 private:
  void corrupt(std::uint64_t* data, fhe::ntt::RowRange rows) const {
    data[5] = (data[5] + 1) % moduli()[rows.first];
  }
  std::unique_ptr<fhe::ntt::NttPlan> inner_;
  bool inverse_only_;
};

// A kernel suite whose radix8_compact plans are corrupted.
KernelSuite faulty_suite(const RecommendPlan& plan, bool inverse_only) {
  PlanFactory faulty = [inverse_only](std::string_view backend, const fhe::DeviceSpec& device, int log_n,
                                      std::span<const std::uint64_t> moduli, fhe::WordType word)
      -> std::unique_ptr<fhe::ntt::NttPlan> {
    auto inner = fhe::ntt::make_plan(backend, device, log_n, moduli, word);
    if (backend == "radix8_compact") return std::make_unique<CorruptingPlan>(std::move(inner), inverse_only);
    return inner;
  };
  return KernelSuite(*plan.preset, plan.device, plan.level, plan.seed, faulty);
}

TEST(KernelSuite, CpuRunWritesCompleteEvidence) {
  test::TempDir dir;
  const auto output = dir.path() / "kernel.json";
  const RecommendPlan plan = resolve_request(small_run(output));
  ASSERT_EQ(plan.backends.size(), 7u);  // logN 12: every backend is compatible on the CPU
  auto suite = make_suite(plan);
  run_recommendation(plan, *suite, {"test"});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"kernel.json"});

  const nlohmann::json doc = read_json(output);
  EXPECT_EQ(doc["schema_version"], 1);
  const auto& m = doc["metadata"];
  EXPECT_EQ(m["suite"], "kernel");
  EXPECT_EQ(m["preset"], kPreset);
  EXPECT_EQ(m["device"], "cpu");
  EXPECT_EQ(m["seed"], 2024);
  EXPECT_EQ(m["active_rows"]["count"], 9);  // 7 Q + 2 P rows at level 0
  EXPECT_EQ(m["operations"], (std::vector<std::string>{"forward_ntt", "inverse_ntt", "roundtrip"}));
  EXPECT_EQ(m["measurement_orders"].size(), 2u);
  EXPECT_EQ(m["measurement_orders"][1][0], m["backends"][1]);
  EXPECT_EQ(m["timer"], "steady_clock");
  EXPECT_FALSE(m["timed_boundary"]["includes"].empty());
  EXPECT_FALSE(m["timed_boundary"]["excludes"].empty());
  ASSERT_EQ(doc["evidence"].size(), 7u * 3u * 2u);
  for (const auto& e : doc["evidence"]) {
    EXPECT_EQ(e["samples_ms"].size(), 3u);
    EXPECT_GT(e["median_ms"].get<double>(), 0.0);
  }
  ASSERT_EQ(doc["correctness"].size(), 7u);
  for (const auto& c : doc["correctness"]) EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
  EXPECT_EQ(doc["rows"].size(), 7u);
  const auto& r = doc["recommendation"];
  EXPECT_EQ(r["confidence"], "low");  // 2 repetitions, 3 runs
  const auto codes = r["reason_codes"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(codes.begin(), codes.end(), "TOO_FEW_REPETITIONS"), codes.end());
  EXPECT_NE(std::find(codes.begin(), codes.end(), "TOO_FEW_RUNS"), codes.end());
  EXPECT_EQ(r["repetition_winners"].size(), 2u);
  EXPECT_EQ(r["fallback_backend"], "radix2_compact_group8_smem8");  // on every device
  EXPECT_EQ(doc["provenance"]["preset"]["primes_hash"], fhe::preset_primes_hash(fhe::preset_by_name(kPreset)));
  EXPECT_TRUE(doc["provenance"]["activity_before"].contains("load_average"));
  EXPECT_EQ(doc["provenance"]["argv"], nlohmann::json::array({"test"}));

  // Rescoring the file reproduces the decision exactly.
  nlohmann::json rescored = doc;
  score_document(rescored);
  EXPECT_EQ(rescored["rows"], doc["rows"]);
  EXPECT_EQ(rescored["recommendation"], doc["recommendation"]);

  // Its report says why there is no profile, instead of a command that
  // only runs on a CUDA device.
  const std::vector<LoadedEvidence> inputs = load_evidence_files({output});  // the model points into them
  const ReportModel model = build_model(inputs, false);
  const std::string markdown = render_markdown(build_report(model, {"fhelium report", "t", true}));
  EXPECT_NE(markdown.find("hardware counters (fhelium benchmark profile ntt) are measured on CUDA devices only"),
            std::string::npos);
  EXPECT_EQ(markdown.find("benchmark profile ntt --backend"), std::string::npos);
  // and that a test-only preset's ranking is no deployment's, as the table does.
  EXPECT_NE(markdown.find("kernel.json: " + std::string(kPreset) + " is a test-only preset"), std::string::npos);
  std::ostringstream table;
  print_ranked_table(table, doc);
  EXPECT_NE(table.str().find("warning: " + std::string(kPreset) + " is a test-only preset"), std::string::npos);
}

TEST(KernelSuite, InjectedFaultIsExcludedAndItsInputSaved) {
  test::TempDir dir;
  const auto output = dir.path() / "kernel.json";
  RecommendOptions options = small_run(output);
  options.backends = {"radix2_indexed", "radix8_compact", "radix16_compact"};
  options.repetitions = 1;
  const RecommendPlan plan = resolve_request(options);
  KernelSuite suite = faulty_suite(plan, false);
  run_recommendation(plan, suite, {"test"});

  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"kernel.failing-radix8_compact.json", "kernel.json"}));
  const nlohmann::json doc = read_json(output);
  ASSERT_EQ(doc["correctness"].size(), 3u);
  const auto& failed = doc["correctness"][1];
  EXPECT_EQ(failed["backend"], "radix8_compact");
  EXPECT_FALSE(failed["passed"].get<bool>());
  EXPECT_FALSE(failed["checks"]["forward_exact"].get<bool>());
  EXPECT_EQ(failed["checks"]["mismatched_words"], 1);
  EXPECT_EQ(failed["failing_input_file"], (dir.path() / "kernel.failing-radix8_compact.json").string());
  for (const auto& e : doc["evidence"]) EXPECT_NE(e["backend"], "radix8_compact");
  EXPECT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["evidence"].size(), 2u * 3u);

  const nlohmann::json failing = read_json(dir.path() / "kernel.failing-radix8_compact.json");
  EXPECT_EQ(failing["seed"], 2024);
  EXPECT_EQ(failing["rows"]["count"], 9);
  EXPECT_EQ(failing["input_words"].size(), 9u * 4096u);
  const auto& row = failing["failing_row"];
  EXPECT_EQ(row["row"], 0);
  EXPECT_EQ(row["input_words"].size(), 4096u);
  EXPECT_NE(row["candidate_forward_words"][5], row["oracle_forward_words"][5]);
  EXPECT_EQ(row["candidate_forward_words"][6], row["oracle_forward_words"][6]);
  // The saved words are the ones the seed regenerates.
  auto oracle = fhe::ntt::make_plan(fhe::ntt::kOracleBackend, {}, 12, plan.preset->qp_primes(), plan.preset->word);
  const auto regenerated = fhe::ntt::random_rows(*oracle, {0, 9}, 2024);
  EXPECT_EQ(failing["input_words"].get<std::vector<std::uint64_t>>(), regenerated);
}

// A forward that is exact and an inverse that is not still leave the row
// that reproduces the failure, with the candidate's inverse words beside it.
TEST(KernelSuite, InverseOnlyFaultSavesItsFailingRow) {
  test::TempDir dir;
  RecommendOptions options = small_run(dir.path() / "kernel.json");
  options.backends = {"radix2_indexed", "radix8_compact", "radix16_compact"};
  options.repetitions = 1;
  const RecommendPlan plan = resolve_request(options);
  KernelSuite suite = faulty_suite(plan, true);
  run_recommendation(plan, suite, {"test"});

  const nlohmann::json doc = read_json(dir.path() / "kernel.json");
  const auto& checks = doc["correctness"][1]["checks"];
  EXPECT_TRUE(checks["forward_exact"].get<bool>());
  EXPECT_FALSE(checks["inverse_exact"].get<bool>());
  EXPECT_FALSE(checks["roundtrip_exact"].get<bool>());
  EXPECT_EQ(checks["first_failing_row"], 0);
  const nlohmann::json failing = read_json(dir.path() / "kernel.failing-radix8_compact.json");
  const auto& row = failing["failing_row"];
  EXPECT_EQ(row["row"], 0);
  EXPECT_EQ(row["candidate_forward_words"], row["oracle_forward_words"]);
  const auto input = row["input_words"].get<std::vector<std::uint64_t>>();
  const auto inverse = row["candidate_inverse_of_oracle_forward_words"].get<std::vector<std::uint64_t>>();
  ASSERT_EQ(inverse.size(), input.size());
  EXPECT_NE(inverse[5], input[5]);
  EXPECT_EQ(inverse[6], input[6]);
  EXPECT_EQ(row["candidate_roundtrip_words"], row["candidate_inverse_of_oracle_forward_words"]);
}

}  // namespace
}  // namespace fhelium
