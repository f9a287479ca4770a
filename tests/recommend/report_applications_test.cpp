// Several application files in one report (matvec diagonal, matvec BSGS,
// key switching): one column each, named by its workload, the provenance
// check across all files, the patterns and the decision over all of them,
// and distinct columns for two runs of the same workload.
#include <gtest/gtest.h>

#include "recommend/report_builder.h"
#include "tests/recommend/report_test_support.h"

namespace fhelium {
namespace {

using namespace test;

const nlohmann::json kDiagonal = {{"name", "matvec"}, {"dim", 128}, {"method", "diagonal"},
                                  {"diagonal_policy", "batch"}, {"graph", "on"}};
const nlohmann::json kBsgs = {{"name", "matvec"}, {"dim", 128}, {"method", "bsgs"},
                              {"diagonal_policy", "batch"}, {"graph", "on"}};
const nlohmann::json kKeySwitch = {{"name", "keyswitch"}, {"levels", {0, 17, 34}}, {"rotation_step", 1},
                                   {"graph", "off"}};
const std::vector<std::string> kKeySwitchOps = {"key_switch_level0", "key_switch_level17", "key_switch_level34"};

class ReportApplications : public ::testing::Test {
 protected:
  TempDir dir_;

  // Kernel and primitive evidence plus the three application files; the
  // key-switch run had another driver. `keyswitch_radix16` makes the key
  // switch prefer radix16_compact; `screen_fallback` adds group8, the stable
  // fallback, to the application files, 20 % behind.
  std::vector<LoadedEvidence> load(bool keyswitch_radix16 = false, bool screen_fallback = false) {
    Machine other_driver;
    other_driver.driver = "590.10";
    const std::vector<double> radix16_keyswitch =
        keyswitch_radix16 ? std::vector<double>{2.7, 2.7, 1.8} : std::vector<double>{3.3, 3.3, 2.2};
    const auto with_fallback = [&](std::vector<std::pair<std::string, std::vector<double>>> rows) {
      if (screen_fallback) {
        std::vector<double> slower = rows.front().second;
        for (double& v : slower) v *= 1.2;
        rows.push_back({kG8, slower});
      }
      return rows;
    };
    std::vector<std::filesystem::path> paths = {
        write_json(dir_.path() / "keyswitch.json",
                   application_document(kKeySwitch, kKeySwitchOps,
                                        with_fallback({{kG16, {3, 3, 2}}, {kR16, radix16_keyswitch}}), other_driver)),
        write_json(dir_.path() / "kernel.json",
                   suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}})),
        write_json(dir_.path() / "diagonal.json",
                   application_document(kDiagonal, {"matvec_128x128_diagonal_batch"},
                                        with_fallback({{kG16, {90}}, {kR16, {99}}}))),
        write_json(dir_.path() / "bsgs.json",
                   application_document(kBsgs, {"matvec_128x128_bsgs_batch"},
                                        with_fallback({{kG16, {27}}, {kR16, {29.7}}}))),
    };
    return load_evidence_files(paths);
  }
};

const std::string kDiagonalLabel = "application: matvec 128x128 diagonal, batch diagonals, CUDA graph";
const std::string kBsgsLabel = "application: matvec 128x128 bsgs, batch diagonals, CUDA graph";
const std::string kKeySwitchLabel = "application: keyswitch at levels 0, 17, 34, rotation step 1";

TEST_F(ReportApplications, EachWorkloadIsItsOwnColumnAfterTheLowerScopes) {
  const auto files = load();
  EXPECT_EQ(files[0].label, kKeySwitchLabel);
  EXPECT_EQ(files[2].label, kDiagonalLabel);
  EXPECT_EQ(files[3].label, kBsgsLabel);
  const ReportModel model = build_model(files, false);
  ASSERT_EQ(model.contexts.size(), 1u);  // one GPU model and preset
  const std::string md = render_markdown(build_report(model, {"fhelium report", "t", false}));
  // Scope order, then input order among the applications.
  const std::string header = "| backend | kernel — rank · score [95% CI] | " + kKeySwitchLabel +
                             " — rank · score [95% CI] | " + kDiagonalLabel + " — rank · score [95% CI] | " +
                             kBsgsLabel + " — rank · score [95% CI] |";
  EXPECT_NE(md.find(header), std::string::npos) << md;
  // Each scope's timed boundary is in the list under the table, in the same order.
  const auto kernel_line = md.find("- kernel: recommends ");
  const auto bsgs_line = md.find("- " + kBsgsLabel + ": recommends ");
  ASSERT_NE(kernel_line, std::string::npos);
  ASSERT_NE(bsgs_line, std::string::npos);
  EXPECT_LT(kernel_line, bsgs_line);
  EXPECT_NE(md.find("; timed: kernel boundary; outside the timed region: ", kernel_line), std::string::npos);
  EXPECT_NE(md.find("; timed: application boundary; outside the timed region: ", bsgs_line), std::string::npos);
  EXPECT_NE(md.find("| " + kG16 + " | #1 · S 1.0000"), std::string::npos);
  // The inputs table names each file's workload.
  EXPECT_NE(md.find("| diagonal.json | " + kDiagonalLabel + " | NVIDIA H200 |"), std::string::npos);
}

TEST_F(ReportApplications, ProvenanceIsCheckedAcrossEveryFile) {
  const auto files = load();
  const ReportModel model = build_model(files, false);
  ASSERT_EQ(model.differences.size(), 1u);
  EXPECT_EQ(model.differences[0].field, "driver");
  EXPECT_EQ(model.differences[0].values,
            (std::vector<std::string>{"590.10", "580.159.04", "580.159.04", "580.159.04"}));
  const std::string md = render_markdown(build_report(model, {"fhelium report", "t", false}));
  EXPECT_NE(md.find("> **WARNING:** the inputs differ in driver (keyswitch.json: 590.10; kernel.json: 580.159.04; "
                    "diagonal.json: 580.159.04; bsgs.json: 580.159.04)."),
            std::string::npos);
}

TEST_F(ReportApplications, PatternsAndTheDecisionCoverEveryApplication) {
  const auto files = load();
  const ReportModel model = build_model(files, true);
  const DeploymentDecision& d = model.decisions[0];
  EXPECT_EQ(d.deciding_scope, kKeySwitchLabel + ", " + kDiagonalLabel + ", " + kBsgsLabel);
  EXPECT_EQ(d.steps[4].conclusion, kKeySwitchLabel + " recommends " + kG16 + " (high); " + kDiagonalLabel +
                                       " recommends " + kG16 + " (high); " + kBsgsLabel + " recommends " + kG16 +
                                       " (high)");
  EXPECT_EQ(d.backend, kG16);
  EXPECT_FALSE(d.fallback_kept);
  std::vector<std::string> scopes;
  for (const auto& f : model.patterns[0].findings) scopes.push_back(f.scope);
  EXPECT_EQ(scopes, (std::vector<std::string>{"kernel -> " + kKeySwitchLabel, "kernel -> " + kDiagonalLabel,
                                              "kernel -> " + kBsgsLabel}));
}

TEST_F(ReportApplications, ApplicationsThatDisagreeKeepTheStableFallback) {
  const auto files = load(true, true);
  const DeploymentDecision d = build_model(files, false).decisions[0];
  EXPECT_EQ(files[0].analysis.decision.recommended_backend, kR16);
  EXPECT_TRUE(d.fallback_kept);
  EXPECT_EQ(d.backend, kG8);
  EXPECT_EQ(d.confidence, "low");
  EXPECT_NE(d.steps[3].conclusion.find("the deciding files recommend different backends"), std::string::npos);
}

// Without group8 in the application files there is no fallback to keep: the
// first deciding file's documented choice stands, at low confidence.
TEST_F(ReportApplications, AnUnscreenedFallbackIsNotKept) {
  const auto files = load(true);
  const DeploymentDecision d = build_model(files, false).decisions[0];
  EXPECT_FALSE(d.fallback_kept);
  EXPECT_EQ(d.backend, kR16);
  EXPECT_EQ(d.confidence, "low");
  EXPECT_NE(d.steps[3].conclusion.find("is not ranked in every deciding file"), std::string::npos);
}

TEST_F(ReportApplications, TheSameWorkloadTwiceGetsDistinctColumns) {
  Machine second_unit;
  second_unit.uuid = "GPU-2222";
  const auto a = write_json(dir_.path() / "bsgs-a.json",
                            application_document(kBsgs, {"matvec_128x128_bsgs_batch"}, {{kG16, {27}}, {kR16, {29.7}}}));
  const auto b = write_json(dir_.path() / "bsgs-b.json",
                            application_document(kBsgs, {"matvec_128x128_bsgs_batch"}, {{kG16, {27.1}}, {kR16, {29.6}}},
                                                 second_unit));
  const auto files = load_evidence_files({a, b, a});
  EXPECT_EQ(files[0].label, kBsgsLabel + " [bsgs-a.json] #1");
  EXPECT_EQ(files[1].label, kBsgsLabel + " [bsgs-b.json]");
  EXPECT_EQ(files[2].label, kBsgsLabel + " [bsgs-a.json] #3");
  // Without a recorded workload the operations name the column, as before.
  nlohmann::json plain = suite_document("application", {"matvec_128x128_bsgs_batch"}, {{kG16, {27}}, {kR16, {29.7}}});
  EXPECT_EQ(loaded("plain.json", plain).label, "application (matvec_128x128_bsgs_batch)");
  // A hand-edited workload of other JSON types still loads; missing fields read "?".
  const nlohmann::json odd = application_document({{"name", "keyswitch"}, {"rotation_step", "2"}, {"graph", true}},
                                                  kKeySwitchOps, {{kG16, {3, 3, 2}}, {kR16, {3.3, 3.3, 2.2}}});
  EXPECT_EQ(loaded("odd.json", odd).label, "application: keyswitch at levels ?, rotation step 2");
}

}  // namespace
}  // namespace fhelium
