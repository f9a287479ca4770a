// SHA-256 against the FIPS 180-4 examples, the provenance check and fleet
// grouping, and the policy file: emit, load, lookup, refusal on mismatch.
#include <gtest/gtest.h>

#include "recommend/report_builder.h"
#include "recommend/report_policy.h"
#include "recommend/report_sha256.h"
#include "tests/recommend/report_test_support.h"

namespace fhelium {
namespace {

using namespace test;

TEST(ReportSha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // 55 and 64 bytes: the padding edges (one block, two blocks).
  EXPECT_EQ(sha256_hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

std::vector<LoadedEvidence> two_files(const Machine& first, const Machine& second) {
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("k.json", suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}}, first)));
  files.push_back(loaded("p.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.5, 3.3}}}, second)));
  return files;
}

TEST(ReportProvenance, DriverMismatchIsNamedAndWarned) {
  Machine other;
  other.driver = "590.10";
  const auto files = two_files({}, other);
  const auto differences = provenance_differences(files);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].field, "driver");
  EXPECT_EQ(differences[0].values, (std::vector<std::string>{"580.159.04", "590.10"}));
  const std::string html = render_html(build_report(build_model(files, false), {"cmd", "t", false}));
  EXPECT_NE(html.find("<div class=\"warning\"><strong>WARNING:</strong> the inputs differ in driver "
                      "(k.json: 580.159.04; p.json: 590.10)"),
            std::string::npos);
  EXPECT_TRUE(provenance_differences(two_files({}, {})).empty());
}

TEST(ReportProvenance, UnitsOfOneModelShareADeploymentButAreWarnedAbout) {
  Machine second_unit;
  second_unit.uuid = "GPU-3333";  // same model, another lent machine
  const auto files = two_files({}, second_unit);
  const ReportModel model = build_model(files, false);
  ASSERT_EQ(model.contexts.size(), 1u);  // kernel and primitive stand side by side
  EXPECT_EQ(model.contexts[0].files.size(), 2u);
  EXPECT_NE(model.contexts[0].gpu_uuid.find("GPU-3333"), std::string::npos);
  const auto differences = provenance_differences(files);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].field, "GPU UUID");
}

TEST(ReportProvenance, FleetViewKeepsOneDecisionPerGpu) {
  Machine h100;
  h100.gpu = "NVIDIA H100";
  h100.uuid = "GPU-2222";
  std::vector<LoadedEvidence> files;
  files.push_back(loaded("h200.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5, 3}}, {kR16, {5.5, 3.3}}})));
  files.push_back(loaded("h100.json", suite_document("ckks-primitive", kPrimitiveOps, {{kG16, {5.5, 3.3}}, {kR16, {5, 3}}}, h100)));
  const ReportModel model = build_model(files, false);
  ASSERT_EQ(model.contexts.size(), 2u);
  EXPECT_EQ(model.decisions[0].backend, kG16);
  EXPECT_EQ(model.decisions[1].backend, kR16);
  const std::string md = render_markdown(build_report(model, {"cmd", "t", false}));
  EXPECT_NE(md.find("## Fleet view"), std::string::npos);
  EXPECT_NE(md.find("| NVIDIA H100 | slots32768-scale40-levels34-int64 | ckks-primitive: radix16_compact | "
                    "radix16_compact | high | differs across the fleet |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("nothing here is a global default"), std::string::npos);
}

TEST(ReportPolicy, EmitLoadLookupAndRefuse) {
  TempDir dir;
  Machine m;
  const auto k = write_json(dir.path() / "kernel.json",
                            suite_document("kernel", kKernelOps, {{kG16, {1, 1, 2}}, {kR16, {1.1, 1.1, 2.2}}}, m));
  const auto files = load_evidence_files({k});
  const ReportModel model = build_model(files, false);
  const nlohmann::json emitted = policy_json(model.contexts, model.decisions, "t");
  ASSERT_EQ(emitted["entries"].size(), 1u);
  EXPECT_EQ(emitted["entries"][0]["evidence"][0]["sha256"], sha256_file_hex(k));
  EXPECT_EQ(emitted["entries"][0]["key"]["git_commit"], "abc123");
  write_json(dir.path() / "policy.json", emitted);

  const NttPolicy policy = NttPolicy::load(dir.path() / "policy.json");
  const PolicyKey running{m.gpu, m.driver, m.commit, m.preset};
  EXPECT_EQ(policy.lookup(running).backend, kG16);
  EXPECT_EQ(policy.lookup(running).confidence, "high");

  PolicyKey other_driver = running;
  other_driver.driver = "590.10";
  try {
    policy.lookup(other_driver);
    FAIL() << "a driver mismatch must be refused";
  } catch (const PolicyMismatch& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("driver (policy '580.159.04', running '590.10')"), std::string::npos) << message;
    EXPECT_EQ(message.find("preset ("), std::string::npos) << message;  // only what differs is named
  }
  PolicyKey other_build = running;
  other_build.git_commit = "def456";
  other_build.preset = "slots8192-scale40-levels8-int64";
  EXPECT_THROW(policy.lookup(other_build), PolicyMismatch);
  EXPECT_THROW(NttPolicy::load(dir.path() / "missing.json"), fhe::InvalidArgument);
  EXPECT_THROW(NttPolicy::load(k), fhe::InvalidArgument);  // evidence is not a policy
}

}  // namespace
}  // namespace fhelium
