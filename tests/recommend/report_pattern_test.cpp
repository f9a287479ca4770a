// Pattern classification and the decision walk on hand-made evidence: one
// test per pattern of the disagreement table, and the walk's step 4.
#include <gtest/gtest.h>

#include "recommend/report_builder.h"
#include "recommend/report_decision.h"
#include "recommend/report_patterns.h"
#include "tests/recommend/report_test_support.h"

namespace fhelium {
namespace {

using namespace test;

std::vector<Pattern> patterns_of(const std::vector<LoadedEvidence>& files) {
  const auto contexts = group_contexts(files);
  EXPECT_EQ(contexts.size(), 1u);
  std::vector<Pattern> out;
  for (const auto& f : classify_patterns(contexts.front()).findings) out.push_back(f.pattern);
  return out;
}

TEST(ReportPatterns, CompositionPreserved) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}})));
  files.push_back(loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.5, 3.3}}})));
  EXPECT_EQ(patterns_of(files), std::vector<Pattern>{Pattern::composition_preserved});
  const auto contexts = group_contexts(files);
  const std::string clear = classify_patterns(contexts.front()).findings.at(0).evidence;
  EXPECT_EQ(clear.find("weak evidence"), std::string::npos) << clear;
}

// The same winner of a near tie is reported with its margin, as weak evidence.
TEST(ReportPatterns, CompositionThroughANearTieIsWeakEvidence) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}})));
  // radix16 1 % behind at the primitive scope.
  files.push_back(loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.05, 3.03}}})));
  const auto contexts = group_contexts(files);
  const auto report = classify_patterns(contexts.front());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].pattern, Pattern::composition_preserved);
  const std::string& text = report.findings[0].evidence;
  EXPECT_NE(text.find("ckks-primitive is a near tie (margin 1.00%), so the agreement is weak evidence"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("kernel is a near tie"), std::string::npos) << text;
}

TEST(ReportPatterns, KernelWinDilutedToNearTie) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}})));
  // At primitive scope radix16 is best by 1 %: group16 is inside the 3 % band.
  files.push_back(loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {4.95, 2.97}}})));
  const auto contexts = group_contexts(files);
  const auto report = classify_patterns(contexts.front());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].pattern, Pattern::kernel_win_diluted);
  EXPECT_EQ(report.findings[0].scope, "kernel -> ckks-primitive");
  EXPECT_NE(report.findings[0].evidence.find("by 10.00%"), std::string::npos) << report.findings[0].evidence;
  EXPECT_NE(report.findings[0].evidence.find("within 1.01%"), std::string::npos) << report.findings[0].evidence;
}

TEST(ReportPatterns, TheSameClearWinnerAtBothScopesIsNotADilution) {
  std::vector<LoadedEvidence> files;
  // group16 leads the kernel suite by 17 % though radix16 has the fastest forward.
  files.push_back(
      loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1.05, 1, 2}}, {kR16, {1, 1.3, 2.6}}})));
  files.push_back(
      loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.5, 3.3}}})));
  const auto contexts = group_contexts(files);
  const auto report = classify_patterns(contexts.front());
  EXPECT_EQ(patterns_of(files), std::vector<Pattern>{Pattern::forward_inverse_split});
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes[0].find("same numerical winner " + kG16), std::string::npos) << report.notes[0];
}

TEST(ReportPatterns, ForwardInverseSplit) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1.0, 1.2, 2.2}}, {kR16, {1.2, 1.0, 2.3}}})));
  const auto contexts = group_contexts(files);
  const auto report = classify_patterns(contexts.front());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].pattern, Pattern::forward_inverse_split);
  EXPECT_EQ(report.findings[0].evidence,
            "fastest forward_ntt: " + kG16 + ", fastest inverse_ntt: " + kR16);
  EXPECT_EQ(report.notes.size(), 2u);  // no primitive suite, no application suite
}

TEST(ReportPatterns, DifferentClearWinners) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}})));
  files.push_back(loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5.5, 3.3}}, {kR16, {5, 3}}})));
  EXPECT_EQ(patterns_of(files), std::vector<Pattern>{Pattern::different_clear_winners});
}

// Primitive evidence in which group16 wins, but loses repetition 2 to radix16.
nlohmann::json unstable_primitive(const std::vector<std::pair<std::string, std::vector<double>>>& backends) {
  nlohmann::json primitive = suite_document("ckks-primitive", kPrimitiveOps, backends);
  scale_series(primitive, kG16, "encrypt_message", 2, 1.5);
  scale_series(primitive, kG16, "multiply_relinearize", 2, 1.5);
  return primitive;
}

TEST(ReportPatterns, UnstableRepetitionsAndStepFourKeepsTheFallback) {
  const nlohmann::json primitive = unstable_primitive({{kG16, {5, 3}}, {kR16, {5.5, 3.3}}, {kG8, {6, 4}}});
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("p.json", primitive));
  EXPECT_EQ(patterns_of(files), std::vector<Pattern>{Pattern::unstable_repetitions});

  const auto contexts = group_contexts(files);
  const DeploymentDecision d = walk_decision(contexts.front(), false);
  EXPECT_EQ(d.documented_recommendation, kG16);
  EXPECT_TRUE(d.fallback_kept);
  EXPECT_EQ(d.backend, kG8);
  EXPECT_EQ(d.confidence, "low");
  EXPECT_EQ(d.apply, "fhe::CkksEngine engine(\"slots32768-scale40-levels34-int64\", {.device = \"cuda:0\", "
                     ".ntt_backend = \"" + kG8 + "\"});");
  ASSERT_EQ(d.steps.size(), 7u);
  EXPECT_TRUE(d.steps[1].incomplete);  // no kernel evidence
  EXPECT_TRUE(d.steps[4].incomplete);  // no application evidence
  EXPECT_NE(d.steps[4].conclusion.find("no application evidence"), std::string::npos);
}

// The evidence text says when a near tie explains the winner's changes
// (low CV, every repetition's winner near-tied) and not otherwise.
TEST(ReportPatterns, WinnerChangesInsideANearTieAreSaidToBeTheTies) {
  const auto evidence_of = [](const nlohmann::json& primitive) {
    std::vector<LoadedEvidence> files;
    files.push_back(loaded("p.json", primitive));
    const auto contexts = group_contexts(files);
    const auto report = classify_patterns(contexts.front());
    EXPECT_EQ(report.findings.size(), 1u);
    return report.findings.empty() ? std::string() : report.findings[0].evidence;
  };
  const std::string tie_text = "the changes reflect the tie";
  // radix16 1 % behind group16, and faster in repetition 2.
  nlohmann::json tied = suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.05, 3.03}}});
  scale_series(tied, kG16, "encrypt_message", 2, 1.03);
  scale_series(tied, kG16, "multiply_relinearize", 2, 1.03);
  const std::string tied_text = evidence_of(tied);
  EXPECT_NE(tied_text.find("won 2 of 3"), std::string::npos) << tied_text;
  EXPECT_NE(tied_text.find(tie_text), std::string::npos) << tied_text;
  // radix16 10 % behind: its win in repetition 2 is not a tie's.
  const std::string apart_text = evidence_of(unstable_primitive({{kG16, {5, 3}}, {kR16, {5.5, 3.3}}}));
  EXPECT_NE(apart_text.find("won 2 of 3"), std::string::npos) << apart_text;
  EXPECT_EQ(apart_text.find(tie_text), std::string::npos) << apart_text;
}

// Step 3 names the margin's owner: the numerical winner, which the
// stable fallback replaced inside the near-tie band.
TEST(ReportPatterns, StepThreeNamesTheWinnerTheFallbackReplaced) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kG8, {5.05, 3.03}}})));
  const auto contexts = group_contexts(files);
  const DeploymentDecision d = walk_decision(contexts.front(), false);
  ASSERT_GE(d.steps.size(), 3u);
  EXPECT_EQ(d.steps[2].conclusion, "ckks-primitive recommends " + kG8 +
                                       " (low confidence, the stable fallback, within the near-tie band of the "
                                       "numerical winner " + kG16 + ": margin 1.00% over " + kG8 + ")");
}

// The describe section says when the recommended backend (here the
// fallback, third) is not one of the two it contrasts, and only then.
TEST(ReportPatterns, TheDescribeSectionSaysWhenTheChoiceIsNotContrasted) {
  const auto markdown_of = [](const nlohmann::json& primitive) {
    std::vector<LoadedEvidence> files;
    files.push_back(loaded("p.json", primitive));
    const ReportModel model = build_model(files, false);
    return render_markdown(build_report(model, {"fhelium report", "t", true}));
  };
  const std::string sentence = "is neither of these two";
  const std::string third = markdown_of(
      suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.02, 3.01}}, {kG8, {5.1, 3.06}}}));
  EXPECT_NE(third.find("The recommended " + kG8 + " " + sentence), std::string::npos) << third;
  const std::string second =
      markdown_of(suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kG8, {5.1, 3.06}}}));
  EXPECT_NE(second.find("Kernel launches of " + kG16 + " and " + kG8), std::string::npos) << second;
  EXPECT_EQ(second.find(sentence), std::string::npos) << second;
}

// The fallback is kept only where it was ranked: one that failed the
// correctness gate has no evidence to stand on.
TEST(ReportPatterns, StepFourNeverKeepsAFallbackThatFailedTheGate) {
  nlohmann::json primitive = unstable_primitive({{kG16, {5, 3}}, {kR16, {5.5, 3.3}}});
  primitive["metadata"]["backends"].push_back(kG8);
  primitive["correctness"] = {{{"backend", kG8}, {"passed", false}, {"summary", "error 3e-3"}}};
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("p.json", primitive));
  const auto contexts = group_contexts(files);
  const DeploymentDecision d = walk_decision(contexts.front(), false);
  EXPECT_EQ(d.documented_recommendation, kG16);
  EXPECT_FALSE(d.fallback_kept);
  EXPECT_EQ(d.backend, kG16);
  EXPECT_EQ(d.confidence, "low");
  EXPECT_NE(d.steps[3].conclusion.find("the stable fallback " + kG8 + " is not ranked"), std::string::npos)
      << d.steps[3].conclusion;
}

TEST(ReportPatterns, CorrectnessFailure) {
  nlohmann::json kernel = suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}});
  kernel["metadata"]["backends"].push_back("radix4_compact");
  kernel["correctness"] = {{{"backend", "radix4_compact"}, {"passed", false}, {"summary", "word 17 differs"}}};
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", kernel));
  const auto contexts = group_contexts(files);
  const auto report = classify_patterns(contexts.front());
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].pattern, Pattern::correctness_failure);
  EXPECT_EQ(report.findings[0].evidence, "radix4_compact: word 17 differs");
  const DeploymentDecision d = walk_decision(contexts.front(), true);
  EXPECT_EQ(d.steps[0].conclusion.find("failed the correctness gate: radix4_compact (kernel)"), 0u);
  EXPECT_EQ(d.backend, kG16);  // stable, clear winner: the documented choice stands
  EXPECT_FALSE(d.fallback_kept);
  EXPECT_EQ(d.confidence, "high");
}

}  // namespace
}  // namespace fhelium
