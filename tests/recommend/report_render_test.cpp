// The report on the real H200 evidence (results/h200, copied to a temp dir):
// side-by-side table, inline SVG, the decision and its C++ line, no
// external references; and the same through the built binary, with its
// bad-input exit codes.
#include <gtest/gtest.h>

#include <fstream>

#include "recommend/report_builder.h"
#include "recommend/report_sha256.h"
#include "tests/recommend/report_test_support.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

using namespace test;

using fhelium::testing::read_text;

class H200Report : public ::testing::Test {
 protected:
  TempDir dir_;
  std::filesystem::path kernel_ = dir_.path() / "kernel.json";
  std::filesystem::path primitive_ = dir_.path() / "ckks-primitive.json";
  void SetUp() override {
    const std::filesystem::path source = std::filesystem::path(FHELIUM_SOURCE_DIR) / "results/h200";
    std::filesystem::copy_file(source / "kernel.json", kernel_);
    // The first primitive evidence (host-timed encryption): a fixed input.
    std::filesystem::copy_file(source / "ckks-primitive-v1-host-encrypt.json", primitive_);
  }

  int run(const std::string& args, std::string* err = nullptr) {
    const auto result = fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " " + args);
    if (err) *err = result.err;
    return result.exit_code;
  }
};

TEST_F(H200Report, HtmlHoldsTableChartsDecisionAndNoExternalReference) {
  const auto files = load_evidence_files({kernel_, primitive_});
  const ReportModel model = build_model(files, false);
  const std::string html = render_html(build_report(model, {"fhelium report", "t", true}));
  EXPECT_NE(html.find("<h3>Side by side</h3>\n<table>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>backend</th><th>kernel — rank · score [95% CI]</th>"
                      "<th>ckks-primitive — rank · score [95% CI]</th></tr>"),
            std::string::npos);
  // The timed boundary sits under the table, after the scope's recommendation.
  EXPECT_NE(html.find("<li>kernel: recommends radix2_compact_group16_smem8 (confidence "), std::string::npos);
  EXPECT_NE(html.find("); timed: forward_ntt: one forward transform of 39 rows"), std::string::npos);
  EXPECT_NE(html.find("<td>radix2_compact_group16_smem8</td><td>#1 · S 1.0000 [1.0000, 1.0002]</td>"
                      "<td>#1 · S 1.0000 [1.0000, 1.0565]</td>"),
            std::string::npos);
  EXPECT_GE(std::count(html.begin(), html.end(), '<') , 100);
  std::size_t svgs = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 6u);  // three charts per suite
  // The primitive suite's winner changed in repetition 3: step 4 keeps the fallback.
  EXPECT_EQ(model.decisions[0].backend, "radix2_compact_group8_smem8");
  EXPECT_EQ(model.decisions[0].documented_recommendation, "radix2_compact_group16_smem8");
  EXPECT_NE(html.find("Decision: radix2_compact_group8_smem8 — confidence low"), std::string::npos);
  EXPECT_NE(html.find("fhe::CkksEngine engine(&quot;slots32768-scale40-levels34-int64&quot;, {.device = "
                      "&quot;cuda:0&quot;, .ntt_backend = &quot;radix2_compact_group8_smem8&quot;});"),
            std::string::npos);
  EXPECT_NE(html.find("<td>composition preserved</td><td>kernel -&gt; ckks-primitive</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>unstable repetitions or high CV</td><td>ckks-primitive</td>"), std::string::npos);
  EXPECT_EQ(html.find("http:"), std::string::npos);
  EXPECT_EQ(html.find("https:"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("test-only preset"), std::string::npos);  // a deployment preset
  EXPECT_EQ(html.find("src="), std::string::npos);
#if !FHELIUM_HAS_CUDA
  // This build has no CUDA: the contrast says so instead of inventing numbers.
  EXPECT_NE(html.find("not available: no GPU of the evidence's model (NVIDIA H200, GPU-9845be8e"), std::string::npos);
#endif
}

TEST_F(H200Report, BinaryWritesReportPolicyAndArchive) {
  const auto out = dir_.path() / "report";
  ASSERT_EQ(run("report " + kernel_.string() + " " + primitive_.string() + " --output " + out.string() +
                " --archive --emit-policy " + (dir_.path() / "policy.json").string()),
            0);
  EXPECT_NE(read_text(out / "report.md").find("| radix2_compact_group16_smem8 | #1 · S 1.0000"), std::string::npos);
  EXPECT_NE(read_text(out / "report.html").find("<svg"), std::string::npos);
  EXPECT_EQ(read_text(out / "evidence/01-kernel.json"), read_text(kernel_));
  const auto manifest = nlohmann::json::parse(read_text(out / "manifest.json"));
  EXPECT_EQ(manifest["files"][1]["sha256"], sha256_file_hex(primitive_));
  EXPECT_EQ(manifest["files"][1]["command"][5], "ckks-primitive");
  const auto policy = nlohmann::json::parse(read_text(dir_.path() / "policy.json"));
  EXPECT_EQ(policy["entries"][0]["key"]["gpu_model"], "NVIDIA H200");
  EXPECT_EQ(policy["entries"][0]["key"]["driver"], "580.159.04");
  EXPECT_EQ(policy["entries"][0]["backend"], "radix2_compact_group8_smem8");
}

// A report written again into its directory leaves no copy of the earlier
// archive that the new one does not list; files it did not write stay.
TEST_F(H200Report, ReusedDirectoryKeepsOnlyTheCurrentArchive) {
  const auto out = dir_.path() / "again";
  const std::string both = "report " + kernel_.string() + " " + primitive_.string() + " --output " + out.string();
  ASSERT_EQ(run(both + " --archive"), 0);
  ASSERT_TRUE(std::filesystem::exists(out / "evidence/02-ckks-primitive.json"));
  std::ofstream(out / "evidence/notes.txt") << "mine";
  ASSERT_EQ(run("report " + kernel_.string() + " --output " + out.string() + " --archive"), 0);
  EXPECT_TRUE(std::filesystem::exists(out / "evidence/01-kernel.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "evidence/02-ckks-primitive.json"));
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "manifest.json"))["files"].size(), 1u);
  const auto result = fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " " + both);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("removed an earlier report's archive from " + out.string()), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out / "manifest.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "evidence/01-kernel.json"));
  EXPECT_EQ(read_text(out / "evidence/notes.txt"), "mine");
}

// The natural layout: the policy inside the output directory, which the
// report creates.
TEST_F(H200Report, PolicyMayLieInTheOutputDirectoryItCreates) {
  const auto out = dir_.path() / "fresh";
  ASSERT_FALSE(std::filesystem::exists(out));
  std::string err;
  ASSERT_EQ(run("report " + kernel_.string() + " --output " + out.string() + " --emit-policy " +
                    (out / "policy.json").string(),
                &err),
            0)
      << err;
  EXPECT_NE(read_text(out / "report.md").find("| radix2_compact_group16_smem8 | #1 · S 1.0000"), std::string::npos);
  const auto policy = nlohmann::json::parse(read_text(out / "policy.json"));
  EXPECT_EQ(policy["entries"][0]["key"]["gpu_model"], "NVIDIA H200");
}

TEST_F(H200Report, BadInputExitsTwoAndWritesNothing) {
  const auto out = dir_.path() / "out";
  std::string err;
  EXPECT_EQ(run("report " + (dir_.path() / "missing.json").string() + " --output " + out.string(), &err), 2);
  EXPECT_EQ(err, "fhelium: error: cannot read evidence file " + (dir_.path() / "missing.json").string() + "\n");
  write_json(dir_.path() / "broken.json", nlohmann::json::object());
  std::ofstream(dir_.path() / "text.json") << "{ not json";
  EXPECT_EQ(run("report " + (dir_.path() / "text.json").string() + " --output " + out.string(), &err), 2);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  EXPECT_EQ(run("report " + kernel_.string() + " " + (dir_.path() / "broken.json").string() + " --output " +
                    out.string(), &err),
            2);
  EXPECT_NE(err.find("broken.json is not usable evidence"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // A run whose every backend failed the gate (the recommender's exit-1 file).
  nlohmann::json failed = nlohmann::json::parse(read_text(kernel_));
  failed["evidence"] = nlohmann::json::array();
  failed["rows"] = nlohmann::json::array();
  failed["recommendation"] = nullptr;
  failed["correctness"] = {{{"backend", "radix16_compact"}, {"passed", false}, {"summary", "forward MISMATCH"}}};
  write_json(dir_.path() / "failed.json", failed);
  EXPECT_EQ(run("report " + (dir_.path() / "failed.json").string() + " --output " + out.string(), &err), 2);
  EXPECT_NE(err.find("failed.json is not usable evidence: not valid evidence: every backend failed the "
                     "correctness gate"),
            std::string::npos)
      << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // Output under a regular file, and a policy in a missing directory.
  EXPECT_EQ(run("report " + kernel_.string() + " --output " + (kernel_ / "out").string(), &err), 2);
  EXPECT_EQ(run("report " + kernel_.string() + " --output " + out.string() + " --emit-policy " +
                    (dir_.path() / "nodir/policy.json").string(), &err),
            2);
  EXPECT_FALSE(std::filesystem::exists(out));
  // A policy path that names a directory, or lies below the new output directory.
  EXPECT_EQ(run("report " + kernel_.string() + " --output " + out.string() + " --emit-policy " + out.string() + "/",
                &err),
            2);
  EXPECT_EQ(err, "fhelium: error: policy path " + out.string() + "/ names a directory\n");
  EXPECT_EQ(run("report " + kernel_.string() + " --output " + out.string() + " --emit-policy " +
                    (out / "sub/policy.json").string(), &err),
            2);
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(run("report --output " + out.string(), &err), 2);  // no evidence file
}

// The policy file may replace neither an input nor one of the report's
// files, and no input may be given twice.
TEST_F(H200Report, CollidingPathsExitTwoAndWriteNothing) {
  const auto out = dir_.path() / "out";
  const std::string kernel_sha = sha256_file_hex(kernel_);
  std::string err;
  EXPECT_EQ(run("report " + kernel_.string() + " --output " + out.string() + " --emit-policy " + kernel_.string(),
                &err),
            2);
  EXPECT_NE(err.find("would replace an input"), std::string::npos) << err;
  for (const std::string& name : {"report.md", "report.html", "manifest.json", "evidence/p.json"}) {
    EXPECT_EQ(run("report " + kernel_.string() + " --archive --output " + out.string() + " --emit-policy " +
                      (out / name).string(),
                  &err),
              2)
        << name;
  }
  EXPECT_EQ(run("report " + kernel_.string() + " " + kernel_.string() + " --output " + out.string(), &err), 2);
  EXPECT_NE(err.find("is given twice"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(sha256_file_hex(kernel_), kernel_sha);
}

}  // namespace
}  // namespace fhelium
