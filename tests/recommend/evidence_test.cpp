// Evidence JSON: minimum fields, round trip through text, rescoring.
#include <gtest/gtest.h>

#include "fhe/core/error.h"
#include "recommend/document_scoring.h"
#include "recommend/evidence.h"
#include "tests/recommend/test_support.h"

namespace fhelium {
namespace {

const std::vector<std::string> kOps = {"forward_ntt", "inverse_ntt", "roundtrip"};

nlohmann::json three_backend_document() {
  std::vector<SampleSeries> series;
  const std::vector<std::pair<std::string, std::vector<double>>> backends = {
      {"radix16_compact", {0.120, 0.140, 0.262}},
      {"radix2_compact_group8_smem8", {0.143, 0.147, 0.290}},
      {"radix8_compact", {0.130, 0.150, 0.280}}};
  for (const auto& [name, medians] : backends) {
    auto s = test::uniform_series(name, kOps, medians, 3, 10, 0.02);
    series.insert(series.end(), s.begin(), s.end());
  }
  return test::minimal_document(series, {"radix16_compact", "radix2_compact_group8_smem8", "radix8_compact"},
                                kOps);
}

TEST(Evidence, SeriesCarriesRawSamplesAndSummaries) {
  SampleSeries s{"radix4_compact", "forward_ntt", 2, {1.0, 2.0, 3.0, 10.0}, {1980, 1700, 1980, 1980}, {}, {false, true, false, false}};
  const nlohmann::json j = series_to_json(s);
  EXPECT_EQ(j["samples_ms"].size(), 4u);
  EXPECT_DOUBLE_EQ(j["median_ms"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j["mean_ms"].get<double>(), 4.0);
  EXPECT_EQ(j["repetition"], 2);
  EXPECT_EQ(j["throttled_count"], 1);
  EXPECT_EQ(j["sm_clock_mhz"][1], 1700);
  EXPECT_FALSE(j.contains("throttle_reasons"));
}

TEST(Evidence, ScoringFillsRowsRecommendationAndApplyLine) {
  nlohmann::json doc = three_backend_document();
  const Analysis analysis = score_document(doc);
  EXPECT_EQ(doc["rows"].size(), 3u);
  EXPECT_EQ(doc["rows"][0]["rank"], 1);
  EXPECT_EQ(doc["rows"][0]["backend"], "radix16_compact");
  EXPECT_EQ(doc["recommendation"]["numerical_winner"], "radix16_compact");
  EXPECT_EQ(doc["recommendation"]["runner_up"], "radix8_compact");
  EXPECT_EQ(doc["recommendation"]["apply"],
            "fhe::CkksEngine engine(\"slots32768-scale40-levels34-int64\", {.device = \"cuda:0\", "
            ".ntt_backend = \"radix16_compact\"});");
  EXPECT_EQ(doc["recommendation"]["fallback_backend"], "radix2_compact_group8_smem8");
  EXPECT_EQ(doc["rows"][0]["score_ci95"].size(), 2u);
  EXPECT_EQ(doc["analysis"]["bootstrap"]["seed"], 7);  // the run's seed
  EXPECT_NEAR(doc["rows"][2]["median_ms"]["forward_ntt"].get<double>(), 0.143, 1e-12);
  EXPECT_EQ(analysis.decision.recommended_backend, "radix16_compact");
}

TEST(Evidence, RoundTripThroughTextRescoresIdentically) {
  nlohmann::json doc = three_backend_document();
  score_document(doc);
  nlohmann::json reread = nlohmann::json::parse(doc.dump(2));
  score_document(reread);
  EXPECT_EQ(reread["rows"], doc["rows"]);
  EXPECT_EQ(reread["recommendation"], doc["recommendation"]);
  EXPECT_EQ(reread["analysis"], doc["analysis"]);
}

TEST(Evidence, RescoreWithWeightsIsRecordedAndReusedUntilOverridden) {
  nlohmann::json doc = three_backend_document();
  score_document(doc, {.weights_text = "roundtrip=2", .policy = "strict"});
  EXPECT_EQ(doc["analysis"]["scoring"]["weights_text"], "roundtrip=2");
  EXPECT_DOUBLE_EQ(doc["analysis"]["scoring"]["weights"]["roundtrip"].get<double>(), 0.5);
  EXPECT_EQ(doc["recommendation"]["policy"], "strict");
  nlohmann::json again = nlohmann::json::parse(doc.dump());
  score_document(again);  // no overrides: the document's latest scoring
  EXPECT_EQ(again["analysis"]["scoring"], doc["analysis"]["scoring"]);
  score_document(again, {.weights_text = "", .policy = "documented"});
  EXPECT_DOUBLE_EQ(again["analysis"]["scoring"]["weights"]["roundtrip"].get<double>(), 1.0 / 3.0);
}

TEST(Evidence, CorrectnessFailuresAreNotRanked) {
  nlohmann::json doc = three_backend_document();
  doc["correctness"] = {{{"backend", "radix16_compact"}, {"passed", false}}};
  score_document(doc);
  EXPECT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["recommendation"]["numerical_winner"], "radix8_compact");
}

TEST(Evidence, HandWrittenMinimumIsEnough) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "metadata": {"device": "cpu"},
    "evidence": [
      {"backend": "x", "operation": "op", "repetition": 0, "samples_ms": [2.0, 2.1, 1.9]},
      {"backend": "radix2_indexed", "operation": "op", "repetition": 0, "samples_ms": [1.0, 1.1, 0.9]}
    ]})");
  score_document(doc);
  EXPECT_EQ(doc["recommendation"]["recommended_backend"], "radix2_indexed");
  EXPECT_EQ(doc["recommendation"]["confidence"], "low");
  EXPECT_NEAR(doc["recommendation"]["runner_up_margin_pct"].get<double>(), 100.0, 1e-9);
}

TEST(Evidence, InvalidDocumentsNameTheProblem) {
  auto message = [](nlohmann::json doc) {
    try {
      score_document(doc);
    } catch (const fhe::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(nlohmann::json::array()), "not valid evidence: the document is not a JSON object");
  EXPECT_EQ(message({{"evidence", nlohmann::json::array()}}), "not valid evidence: the document lacks 'metadata'");
  nlohmann::json no_samples = {{"metadata", {{"device", "cpu"}}},
                               {"evidence", {{{"backend", "a"}, {"operation", "op"}, {"repetition", 0}}}}};
  EXPECT_EQ(message(no_samples), "not valid evidence: evidence[0] lacks 'samples_ms'");
  nlohmann::json bad_device = {{"metadata", {{"device", "gpu0"}}}, {"evidence", nlohmann::json::array()}};
  EXPECT_NE(message(bad_device).find("invalid device"), std::string::npos);
  nlohmann::json doc = three_backend_document();
  doc["evidence"].erase(doc["evidence"].begin() + 4);
  EXPECT_NE(message(doc).find("evidence lacks radix16_compact / inverse_ntt / repetition 1"), std::string::npos);
  nlohmann::json weights = three_backend_document();
  EXPECT_THROW(score_document(weights, {.weights_text = "rotate=2"}), fhe::InvalidArgument);

  // Samples that contradict the file's own counts, an unbounded bootstrap,
  // and the recommender's file of a run whose every backend failed.
  nlohmann::json counted = three_backend_document();
  counted["metadata"]["runs"] = 10;
  counted["metadata"]["repetitions"] = 3;
  EXPECT_EQ(message(counted), "no error");
  nlohmann::json short_series = counted;
  short_series["evidence"][2]["samples_ms"].erase(short_series["evidence"][2]["samples_ms"].begin());
  EXPECT_EQ(message(short_series),
            "not valid evidence: metadata.runs is 10 but radix16_compact / roundtrip / repetition 0 has 9 samples");
  nlohmann::json fewer_repetitions = counted;
  fewer_repetitions["metadata"]["repetitions"] = 4;
  EXPECT_EQ(message(fewer_repetitions), "not valid evidence: metadata.repetitions is 4 but the samples hold 3");
  nlohmann::json replicates = counted;
  replicates["analysis"] = {{"bootstrap", {{"replicates", 1000000000}}}};
  EXPECT_EQ(message(replicates), "not valid evidence: analysis.bootstrap.replicates must be an integer in [1, 20000]");
  nlohmann::json all_failed = counted;
  all_failed["evidence"] = nlohmann::json::array();
  all_failed["correctness"] = {{{"backend", "radix16_compact"}, {"passed", false}}};
  EXPECT_EQ(message(all_failed).find("not valid evidence: every backend failed the correctness gate"), 0u);
}

}  // namespace
}  // namespace fhelium
