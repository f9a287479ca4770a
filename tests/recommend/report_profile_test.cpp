// A report with profile files: the measured counters of the two leading
// backends beside the describe contrast, the fallback and provenance
// warnings, the hint when no profile is given, and `--profile` through the
// binary (bad files end with exit 2 and write nothing). The evidence is the
// real H200 kernel and ckks-primitive files; the profiles are made from the
// ncu raw-page fixture.
#include <gtest/gtest.h>

#include "recommend/report_builder.h"
#include "recommend/report_sha256.h"
#include "tests/recommend/profile_test_support.h"
#include "tests/recommend/report_test_support.h"

namespace fhelium {
namespace {

using namespace test;
using fhelium::testing::read_text;

class ReportProfile : public ::testing::Test {
 protected:
  TempDir dir_;
  std::filesystem::path kernel_ = dir_.path() / "kernel.json";
  std::filesystem::path primitive_ = dir_.path() / "ckks-primitive.json";
  std::vector<LoadedEvidence> inputs_;
  ReportModel model_;
  std::vector<std::string> leading_;

  void SetUp() override {
    const std::filesystem::path source = std::filesystem::path(FHELIUM_SOURCE_DIR) / "results/h200";
    std::filesystem::copy_file(source / "kernel.json", kernel_);
    // The first primitive evidence (host-timed encryption): a fixed input.
    std::filesystem::copy_file(source / "ckks-primitive-v1-host-encrypt.json", primitive_);
    inputs_ = load_evidence_files({kernel_, primitive_});
    model_ = build_model(inputs_, false);
    leading_ = model_.decisions[0].leading;
    ASSERT_EQ(leading_, (std::vector<std::string>{kG16, kG8}));
  }

  // A profile file on the evidence's GPU, build and preset: the fixture's
  // counters for every backend and direction, or describe's figures.
  nlohmann::json profile_document(const std::vector<std::string>& backends, bool measured = true, int level = 0) {
    return fixture_profile_document(
        backends, measured ? "" : "ncu is neither on PATH nor in /usr/local/cuda/bin",
        inputs_[1].document["provenance"], level);
  }

  std::string markdown(std::vector<LoadedProfile> profiles) {
    ReportOptions options{"fhelium report", "t", true, std::move(profiles)};
    return render_markdown(build_report(model_, options));
  }
};

TEST_F(ReportProfile, TheLeadingBackendsCountersStandInTheDescribeSection) {
  std::vector<LoadedProfile> profiles;
  profiles.push_back(load_profile_document("profile.json", profile_document({kG16, kG8, kR16})));
  const std::string md = markdown(profiles);
  const std::size_t section = md.find("### Describe contrast");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(md.find("Profile of " + kG16 + " and " + kG8 + " (fhelium benchmark profile ntt), per transform, from "
                    "profile.json (ncu, Version 2025.3.1.0 (build 36398880) (public-release), NVIDIA H200 GPU-9845be8e",
                    section),
            std::string::npos)
      << md.substr(section);
  EXPECT_NE(md.find("| backend | direction | source | launches | duration us |", section), std::string::npos);
  EXPECT_NE(md.find("| " + kG16 + " | forward | ncu | 3 | 49.41 | 124/116 | 0/34816 | 22.9 | 2 | 5111808 | 5179392 "
                    "| 163.64 | 3312 (69.0%) | long_scoreboard 4.00 (47%), barrier 2.00 (23%), wait 1.00 (12%) |",
                    section),
            std::string::npos);
  EXPECT_NE(md.find("| " + kG8 + " | inverse | ncu |", section), std::string::npos);
  EXPECT_EQ(md.find("| " + kR16 + " | forward", section), std::string::npos);  // not one of the two leading
  EXPECT_EQ(md.find("WARNING:** profile.json", section), std::string::npos);    // same GPU, build, level
  // The describe contrast still follows.
  EXPECT_NE(md.find("Kernel launches of " + kG16 + " and " + kG8, section), std::string::npos);
  EXPECT_EQ(md.find("No profile was given"), std::string::npos);
}

TEST_F(ReportProfile, DescribeFiguresOtherLevelsAndOtherBuildsAreWarnedAbout) {
  nlohmann::json document = profile_document({kG16, kG8}, false, 3);
  document["provenance"]["device"]["nvml"]["driver_version"] = "590.10";
  std::vector<LoadedProfile> profiles;
  profiles.push_back(load_profile_document("described.json", document));
  const std::string md = markdown(profiles);
  EXPECT_NE(md.find("> **WARNING:** described.json holds NttPlan::describe figures, not measurements: describe "
                    "(ncu unavailable: ncu is neither on PATH nor in /usr/local/cuda/bin)"),
            std::string::npos);
  EXPECT_NE(md.find("> **WARNING:** described.json was profiled at level 3, the evidence was measured at level 0"),
            std::string::npos);
  EXPECT_NE(md.find("> **WARNING:** described.json and ckks-primitive.json differ in driver (evidence "
                    "'580.159.04', profile '590.10')."),
            std::string::npos);
  EXPECT_NE(md.find("| " + kG16 + " | forward | describe (ncu unavailable) | 3 | n/a |"), std::string::npos);
}

TEST_F(ReportProfile, ProfilesOfOtherGpusOrBackendsSayWhatIsMissing) {
  nlohmann::json other_gpu = profile_document({kG16, kG8});
  other_gpu["provenance"]["device"]["name"] = "NVIDIA A100";
  std::vector<LoadedProfile> profiles;
  profiles.push_back(load_profile_document("a100.json", other_gpu));
  const std::string expected_command = "fhelium benchmark profile ntt --backend " + kG16 + " --backend " + kG8 +
                                       " --preset slots32768-scale40-levels34-int64 --level 0 --device cuda:0 "
                                       "--json profile.json";
  EXPECT_NE(markdown(profiles).find("none of the 1 profile file(s) given holds " + kG16 + " and " + kG8 +
                                    " on NVIDIA H200, preset slots32768-scale40-levels34-int64; make one on that "
                                    "GPU with `" + expected_command + "`"),
            std::string::npos);

  profiles.push_back(load_profile_document("g16.json", profile_document({kG16})));
  const std::string md = markdown(profiles);
  EXPECT_NE(md.find("; not profiled: " + kG8 + " (`fhelium benchmark profile ntt --backend " + kG8), std::string::npos);
  EXPECT_NE(md.find("| " + kG16 + " | inverse | ncu |"), std::string::npos);

  // No profile at all: the describe contrast stays, with the command that adds one.
  EXPECT_NE(markdown({}).find("No profile was given. Measured counters of these two backends (kernel durations, "
                              "achieved occupancy, L1/L2 sectors, DRAM bytes and bandwidth, warp stall reasons) can "
                              "be added: run `" + expected_command + "` on that GPU and pass `--profile "
                              "profile.json` to `fhelium report`."),
            std::string::npos);
}

TEST_F(ReportProfile, BinaryEmbedsProfilesAndRefusesBadOnes) {
  const auto profile = write_json(dir_.path() / "profile.json", profile_document({kG16, kG8}));
  const auto out = dir_.path() / "report";
  auto run = [&](const std::string& args, std::string* err = nullptr) {
    const auto result = fhelium::testing::run_command(std::string(FHELIUM_BINARY) + " report " + kernel_.string() +
                                                      " " + primitive_.string() + " --output " + out.string() + args);
    if (err) *err = result.err;
    return result.exit_code;
  };
  std::string err;
  EXPECT_EQ(run(" --profile " + (dir_.path() / "missing.json").string(), &err), 2);
  EXPECT_EQ(err, "fhelium: error: cannot read profile file " + (dir_.path() / "missing.json").string() + "\n");
  EXPECT_EQ(run(" --profile " + kernel_.string(), &err), 2);  // evidence, not a profile
  EXPECT_EQ(err, "fhelium: error: " + kernel_.string() +
                     " is not a usable profile file: not a profile file (kind is not 'fhelium.ntt-profile')\n");
  std::ofstream(dir_.path() / "text.json") << "{ not json";
  EXPECT_EQ(run(" --profile " + (dir_.path() / "text.json").string(), &err), 2);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  EXPECT_FALSE(std::filesystem::exists(out));

  ASSERT_EQ(run(" --profile " + profile.string(), &err), 0) << err;
  EXPECT_NE(read_text(out / "report.md").find("| " + kG16 + " | forward | ncu | 3 | 49.41 |"), std::string::npos);
  EXPECT_NE(read_text(out / "report.html").find("<td>" + kG8 + "</td><td>inverse</td><td>ncu</td>"),
            std::string::npos);

  // --archive keeps the profile beside the evidence: the report names it by
  // its hash, so its bytes must survive whatever happens to the source.
  std::filesystem::remove_all(out);
  ASSERT_EQ(run(" --profile " + profile.string() + " --archive", &err), 0) << err;
  EXPECT_EQ(read_text(out / "evidence/03-profile.json"), read_text(profile));
  const auto manifest = nlohmann::json::parse(read_text(out / "manifest.json"));
  ASSERT_EQ(manifest["files"].size(), 3u);
  EXPECT_EQ(manifest["files"][2]["archived_as"], "evidence/03-profile.json");
  EXPECT_EQ(manifest["files"][2]["suite"], "profile");
  EXPECT_EQ(manifest["files"][2]["sha256"], sha256_file_hex(profile));
  EXPECT_NE(read_text(out / "report.md").find("SHA-256 " + sha256_file_hex(profile).substr(0, 16) + ")"),
            std::string::npos);
}

}  // namespace
}  // namespace fhelium
