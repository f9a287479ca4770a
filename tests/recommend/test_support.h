// Helpers of the recommender tests: hand-made sample series and evidence
// documents, and a temporary directory removed at the end of a test.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recommend/evidence.h"
#include "recommend/sample_series.h"

namespace fhelium::test {

// `runs` samples around `median_ms` spread by +-`spread` (relative), odd
// count symmetric so the median is exactly `median_ms`.
inline std::vector<double> samples_around(double median_ms, int runs, double spread = 0.001) {
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    const double offset = runs == 1 ? 0.0 : (2.0 * i / (runs - 1) - 1.0);  // -1 .. 1
    samples.push_back(median_ms * (1.0 + spread * offset));
  }
  return samples;
}

// One operation per entry of `medians_ms` (per repetition), all repetitions alike
// unless the caller edits the result.
inline std::vector<SampleSeries> uniform_series(const std::string& backend,
                                                const std::vector<std::string>& ops,
                                                const std::vector<double>& medians_ms,
                                                int repetitions, int runs, double spread = 0.001) {
  std::vector<SampleSeries> out;
  for (int r = 0; r < repetitions; ++r)
    for (std::size_t o = 0; o < ops.size(); ++o)
      out.push_back({backend, ops[o], r, samples_around(medians_ms[o], runs, spread), {}, {}, {}});
  return out;
}

// A minimal evidence document: metadata.device/preset/backends/operations/seed + evidence[].
inline nlohmann::json minimal_document(const std::vector<SampleSeries>& series,
                                       const std::vector<std::string>& backends,
                                       const std::vector<std::string>& ops,
                                       const std::string& device = "cuda:0") {
  nlohmann::json doc = {{"metadata",
                         {{"device", device},
                          {"preset", "slots32768-scale40-levels34-int64"},
                          {"backends", backends},
                          {"operations", ops},
                          {"seed", 7}}},
                        {"evidence", nlohmann::json::array()}};
  for (const auto& s : series) doc["evidence"].push_back(series_to_json(s));
  return doc;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fhelium-rec-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Names of the entries, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace fhelium::test
