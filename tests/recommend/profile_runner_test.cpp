// Running ncu and falling back without a GPU: a stand-in `ncu` script plays
// the profiler (its CSV raw page, its ==ERROR== lines, its exit codes), so
// the command line given to ncu, the reading of its output and the choice
// between measured and describe figures are checked here; the real ncu runs
// in the gpu-labelled test.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fhe/core/error.h"
#include "recommend/ntt_profile_runner.h"
#include "tests/recommend/profile_test_support.h"
#include "tests/recommend/test_support.h"

namespace fhelium {
namespace {

using namespace test;
using fhelium::testing::read_text;

class FakeNcu : public ::testing::Test {
 protected:
  TempDir dir_;
  std::filesystem::path args_ = dir_.path() / "args.txt";

  // A `ncu` whose profiling step runs `profile_body` and whose --import step runs `import_body`.
  std::filesystem::path write_ncu(const std::string& profile_body, const std::string& import_body) {
    const auto path = dir_.path() / "ncu";
    std::ofstream(path) << "#!/bin/sh\n"
                        << "if [ \"$1\" = \"--import\" ]; then\n" << import_body << "\nfi\n"
                        << "printf '%s\\n' \"$@\" > '" << args_.string() << "'\n"
                        << profile_body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  std::string cat_fixture() { return "cat '" + raw_page_fixture().string() + "'; exit 0"; }

  NcuOutcome profile(const std::filesystem::path& ncu) {
    return profile_under_ncu(ncu, {"/bin/fhelium", "ntt", "run-once", "--backend", "radix16_compact"},
                             dir_.path() / "radix16_compact-forward");
  }
};

TEST_F(FakeNcu, CountersComeFromTheImportedRawPage) {
  const NcuOutcome outcome = profile(write_ncu("echo '==PROF== Connected to process 1'; exit 0", cat_fixture()));
  ASSERT_TRUE(outcome.ok) << outcome.failure;
  EXPECT_EQ(outcome.kernels.size(), 3u);
  EXPECT_EQ(outcome.kernels[1].duration_ns, 12544.0);
  // The profiling command line: the range, clocks and caches, the stall
  // section and metrics, the report file, then the program.
  std::vector<std::string> args;
  std::ifstream in(args_);
  for (std::string line; std::getline(in, line);) args.push_back(line);
  const std::vector<std::string> head = {"--profile-from-start", "off", "--clock-control", "none", "--cache-control",
                                         "all", "--replay-mode", "kernel", "--section", "WarpStateStats", "--metrics"};
  ASSERT_GE(args.size(), head.size() + 8);
  EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + head.size()), head);
  EXPECT_NE(args[head.size()].find("gpu__time_duration.sum,"), std::string::npos);
  EXPECT_NE(args[head.size()].find("dram__bytes_write.sum"), std::string::npos);
  EXPECT_EQ(args[head.size() + 1], "--export");
  EXPECT_EQ(args[head.size() + 2], (dir_.path() / "radix16_compact-forward.ncu-rep").string());
  EXPECT_EQ(args[head.size() + 3], "--force-overwrite");
  EXPECT_EQ(std::vector<std::string>(args.end() - 5, args.end()),
            (std::vector<std::string>{"/bin/fhelium", "ntt", "run-once", "--backend", "radix16_compact"}));
  EXPECT_EQ(outcome.command.size(), args.size() + 1);  // ncu itself, then its arguments
  // The log and the CSV page stay beside the report.
  EXPECT_EQ(read_text(dir_.path() / "radix16_compact-forward.csv"), read_text(raw_page_fixture()));
  EXPECT_NE(read_text(dir_.path() / "radix16_compact-forward.log").find("==PROF== Connected"), std::string::npos);
}

TEST_F(FakeNcu, CounterPermissionErrorIsTheReasonEvenWithExitZero) {
  const NcuOutcome outcome = profile(write_ncu(
      "echo '==PROF== Connected to process 1'\n"
      "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
      "Counters on the target device 0.'\nexit 0",
      cat_fixture()));
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.failure,
            "profiling: ==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
            "Performance Counters on the target device 0.");
  EXPECT_TRUE(outcome.kernels.empty());
}

TEST_F(FakeNcu, ImportErrorsExitCodesAndEmptyRangesAreReasons) {
  EXPECT_EQ(profile(write_ncu("exit 0", "echo '==ERROR== LibraryNotLoaded: cannot load the report library'; exit 1"))
                .failure,
            "reading the report: ==ERROR== LibraryNotLoaded: cannot load the report library");
  EXPECT_EQ(profile(write_ncu("echo 'fhelium: error: device cuda:0 is not available'; exit 2", cat_fixture())).failure,
            "profiling: ncu exited with status 2 (fhelium: error: device cuda:0 is not available)");
  EXPECT_EQ(profile(write_ncu("echo 'fhelium: error: backend x is incompatible'\n"
                              "echo '==ERROR== The application returned an error code (2).'; exit 2",
                              cat_fixture()))
                .failure,
            "profiling: ==ERROR== The application returned an error code (2). (fhelium: error: backend x is "
            "incompatible)");
  EXPECT_EQ(profile(write_ncu("kill -9 $$", cat_fixture())).failure, "profiling: ncu ended by signal 9");
  const std::string header_only = "head -n 2 '" + raw_page_fixture().string() + "'; exit 0";
  EXPECT_EQ(profile(write_ncu("exit 0", header_only)).failure,
            "ncu profiled no kernel inside the cudaProfilerStart/Stop range");
  EXPECT_EQ(profile(write_ncu("echo '==WARNING== No kernels were profiled.'; exit 0",
                              "echo '==ERROR== cannot open the report'; exit 1"))
                .failure,
            "ncu profiled no kernel inside the cudaProfilerStart/Stop range");
  EXPECT_EQ(profile(write_ncu("exit 0", "echo 'no csv here'; exit 0")).failure,
            "ncu's CSV raw page could not be read: no raw-page header (a row starting with \"ID\") in ncu's output");
  EXPECT_EQ(profile(dir_.path() / "missing-ncu").failure, "cannot execute " + (dir_.path() / "missing-ncu").string());
}

TEST_F(FakeNcu, VersionLine) {
  const auto ncu = write_ncu("echo 'NVIDIA (R) Nsight Compute Command Line Profiler'\n"
                             "echo 'Version 2025.3.1.0 (build 36398880) (public-release)'",
                             cat_fixture());
  EXPECT_EQ(ncu_version(ncu, dir_.path() / "v.log"), "Version 2025.3.1.0 (build 36398880) (public-release)");
  EXPECT_EQ(ncu_version(dir_.path() / "missing-ncu", dir_.path() / "v.log"), "unknown");
}

// Sets an environment variable for one test and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST_F(FakeNcu, NcuIsFoundOnPathThenInTheToolkitsUnlessChosen) {
  const auto ncu = write_ncu("exit 0", "exit 0");
  {
    ScopedEnv path("PATH", "/nonexistent-dir:" + dir_.path().string());
    EXPECT_EQ(locate_ncu(), ncu);
  }
  {
    ScopedEnv path("PATH", "/nonexistent-dir");
    const auto found = locate_ncu();
    EXPECT_TRUE(found.empty() || found == "/usr/local/cuda/bin/ncu" ||
                found.string().starts_with("/opt/nvidia/nsight-compute/"))
        << found;
    ScopedEnv chosen("FHELIUM_NCU", "/opt/other/ncu");
    EXPECT_EQ(ncu_to_use(), "/opt/other/ncu");
  }
}

TEST(ProfileSource, AllMeasuredWhenEveryRunHasCounters) {
  std::vector<std::string> notes;
  auto runs = fixture_runs({"a"}, true);
  runs[1].described.pop_back();  // describe lists 2 launches, ncu saw 3
  const auto profiles = select_profiles(runs, "", 4800.0, notes);
  ASSERT_EQ(profiles.size(), 2u);
  for (const auto& p : profiles) {
    EXPECT_TRUE(p.measured);
    EXPECT_EQ(p.source, "ncu");
    EXPECT_DOUBLE_EQ(p.duration_us, kFixtureDurationNs / 1e3);
  }
  EXPECT_EQ(notes, std::vector<std::string>{"a inverse: ncu profiled 3 kernels, describe lists 2 launches"});
}

TEST(ProfileSource, OneFailureTurnsEveryRowToDescribe) {
  std::vector<std::string> notes;
  // The first backend was measured, the second failed: no mixed table.
  auto runs = fixture_runs({"a"}, true);
  for (auto& run : fixture_runs({"b"}, false)) runs.push_back(std::move(run));
  const auto profiles = select_profiles(runs, "b forward: profiling: ==ERROR== ERR_NVGPUCTRPERM", 4800.0, notes);
  ASSERT_EQ(profiles.size(), 4u);
  for (const auto& p : profiles) {
    EXPECT_FALSE(p.measured);
    EXPECT_EQ(p.source, "describe (ncu unavailable: b forward: profiling: ==ERROR== ERR_NVGPUCTRPERM)");
    EXPECT_EQ(p.launches, 3.0);
    EXPECT_EQ(p.dram_bytes, 81948048.0 + 81629184.0);  // modelled
    EXPECT_TRUE(std::isnan(p.duration_us));
    EXPECT_TRUE(std::isnan(p.dram_pct_of_peak));
  }
  EXPECT_TRUE(notes.empty());
  EXPECT_THROW(select_profiles(runs, "", 4800.0, notes), std::logic_error);
}

TEST(ProfileDocument, MeasuredDocumentPrintsItsSourceAndTable) {
  const nlohmann::json provenance = {{"device", {{"name", "NVIDIA H200"}, {"uuid", "GPU-1"}}}};
  const nlohmann::json document = fixture_profile_document({"radix16_compact"}, "", provenance);
  EXPECT_EQ(document["kind"], "fhelium.ntt-profile");
  EXPECT_EQ(document["source"], "ncu");
  EXPECT_EQ(document["metadata"]["rows"]["count"], 39);  // level 0 of the default preset: 35 Q + 4 P rows
  EXPECT_EQ(document["ncu"]["options"][3], "none");       // --clock-control none
  EXPECT_EQ(document["profiles"][1]["ncu_command"][7], "radix16_compact");
  EXPECT_EQ(document["provenance"], provenance);
  std::ostringstream text;
  print_ntt_profile(text, nlohmann::json::parse(document.dump()));
  const std::string out = text.str();
  EXPECT_EQ(out.rfind("profile: preset slots32768-scale40-levels34-int64, level 0 (39 rows x 2^16, int64), device "
                      "cuda:0 (NVIDIA H200), each row one transform\n"
                      "source: Nsight Compute, Version 2025.3.1.0 (build 36398880) (public-release), "
                      "--profile-from-start off --clock-control none --cache-control all --replay-mode kernel\n"
                      "DRAM peak: 4800 GB/s (device-to-device cudaMemcpy of 1.00 GiB timed with CUDA events, read + "
                      "write bytes, fastest of 2)\n",
                      0),
            0u)
      << out;
  EXPECT_NE(out.find("radix16_compact  inverse    ncu"), std::string::npos) << out;
  EXPECT_EQ(profiles_of(document).size(), 2u);
}

TEST(ProfileDocument, FallbackDocumentSaysNotMeasured) {
  const nlohmann::json document =
      fixture_profile_document({"radix16_compact"}, "ncu is neither on PATH nor in /usr/local/cuda/bin", {});
  EXPECT_EQ(document["source"], "describe (ncu unavailable: ncu is neither on PATH nor in /usr/local/cuda/bin)");
  EXPECT_EQ(document["profiles"][0]["source"], document["source"]);
  EXPECT_FALSE(document["profiles"][0].contains("ncu_command"));
  std::ostringstream text;
  print_ntt_profile(text, document);
  EXPECT_NE(text.str().find("\nWARNING: NOT MEASURED. describe (ncu unavailable: ncu is neither on PATH nor in "
                            "/usr/local/cuda/bin). The rows below are NttPlan::describe's static figures"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("describe (ncu unavailable)  3"), std::string::npos) << text.str();
  EXPECT_THROW(profiles_of(nlohmann::json{{"kind", "fhelium.evidence"}}), fhe::InvalidArgument);
}

TEST(ProfileRequest, BadRequestsAreRefusedBeforeAnyDeviceWork) {
  auto refused = [](NttProfileRequest request, const std::string& expected) {
    try {
      validate_profile_request(request);
      ADD_FAILURE() << "accepted; expected: " << expected;
    } catch (const fhe::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  NttProfileRequest ok;
  ok.backends = {"radix16_compact", "radix2_compact_group16_smem8"};
  EXPECT_NO_THROW(validate_profile_request(ok));
  auto with = [&](auto change) {
    NttProfileRequest r = ok;
    change(r);
    return r;
  };
  refused(with([](auto& r) { r.backends.clear(); }), "at least one --backend");
  refused(with([](auto& r) { r.backends.push_back("radix3_compact"); }), "unknown NTT backend 'radix3_compact'");
  refused(with([](auto& r) { r.backends.push_back("radix16_compact"); }), "backend radix16_compact is given twice");
  refused(with([](auto& r) { r.preset = "test-slots1024-scale40-levels4-int64"; }),
          "radix16_compact is incompatible with preset test-slots1024-scale40-levels4-int64");
  refused(with([](auto& r) { r.level = 99; }), "99");
  refused(with([](auto& r) { r.device = "cpu"; }), "profile runs on a CUDA device (--device cuda:N), not cpu");
  refused(with([](auto& r) { r.device = "gpu0"; }), "invalid device 'gpu0'");
}

// ncu runs the binary as it was invoked (a relative path through
// scripts/suite-evidence's build-gpu link stays relative in the recorded
// command); a bare name or a path to nothing falls back to /proc/self/exe.
TEST(ProfileProgram, TheBinaryAsInvokedWhenItNamesAFile) {
  TempDir dir;
  const std::filesystem::path file = dir.path() / "fhelium";
  std::ofstream(file) << "#!/bin/sh\n";
  EXPECT_EQ(program_to_profile({file.string(), "benchmark"}), file);
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  EXPECT_EQ(program_to_profile({"fhelium", "benchmark"}), self);  // found on PATH: no folder to keep
  EXPECT_EQ(program_to_profile({(dir.path() / "missing").string()}), self);
  EXPECT_EQ(program_to_profile({}), self);
}

}  // namespace
}  // namespace fhelium
