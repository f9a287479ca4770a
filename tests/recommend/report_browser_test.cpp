// The report in a real browser: Debian's chromium (CI installs it through
// scripts/install-deps) renders report.html of the H200 evidence headless.
// The DOM the browser parsed holds the title and one <svg> per chart the
// report builds, the console logs no error or uncaught exception, and a
// screenshot of the window's size is written. Skips when chromium is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "recommend/report_builder.h"
#include "tests/recommend/report_test_support.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

using namespace test;

constexpr int kWidth = 1280;
constexpr int kHeight = 4000;

// CHROMIUM names another binary; otherwise Debian's /usr/bin/chromium.
std::filesystem::path chromium_binary() {
  if (const char* custom = std::getenv("CHROMIUM"); custom && *custom) return custom;
  return "/usr/bin/chromium";
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Lines of chromium's stderr log that carry a page's console message or an
// uncaught exception. This chromium logs every console level (log, warn,
// error) as `INFO:CONSOLE:<line>] "<message>"`, so the level cannot tell an
// error apart; the report has no scripts, so any console line is unexpected
// (the browser's own, e.g. a resource that failed to load, included).
std::vector<std::string> console_messages(const std::string& log) {
  std::vector<std::string> found;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos)
      found.push_back(line);
  return found;
}

class ReportInBrowser : public ::testing::Test {
 protected:
  TempDir dir_;
  std::filesystem::path page_ = dir_.path() / "report.html";
  std::size_t expected_charts_ = 0;
  std::size_t files_ = 0;
  std::string title_;

  void SetUp() override {
    if (!std::filesystem::exists(chromium_binary()))
      GTEST_SKIP() << chromium_binary().string() << " is not installed (apt-get install chromium; "
                   << "scripts/install-deps installs it, so CI runs this test)";
    const std::filesystem::path source = std::filesystem::path(FHELIUM_SOURCE_DIR) / "results/h200";
    const auto files = load_evidence_files(
        {source / "kernel.json", source / "ckks-primitive-v1-host-encrypt.json"});
    const ReportModel model = build_model(files, false);
    const ReportDocument document = build_report(model, {"fhelium report", "t", true});
    title_ = document.title;
    expected_charts_ = static_cast<std::size_t>(
        std::count_if(document.blocks.begin(), document.blocks.end(),
                      [](const ReportBlock& b) { return b.kind == ReportBlock::Kind::svg; }));
    for (const auto& context : model.contexts) files_ += context.files.size();
    std::ofstream(page_) << render_html(document);
  }

  // chromium headless on `page`, killed after 60 s; `extra` is the action.
  fhelium::testing::CommandResult chromium(const std::filesystem::path& page, const std::string& profile,
                                           const std::string& extra) {
    const std::string command =
        "timeout -k 5 60 " + chromium_binary().string() +
        " --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=" + std::to_string(kWidth) + "," +
        std::to_string(kHeight) + " --enable-logging=stderr --v=0 --user-data-dir='" +
        (dir_.path() / profile).string() + "' " + extra + " 'file://" + page.string() + "'";
    return fhelium::testing::run_command(command);
  }
};

TEST_F(ReportInBrowser, DomHoldsTitleAndEveryChartWithoutConsoleErrors) {
  // Three charts per evidence file (ratio bars, score intervals, repetitions).
  ASSERT_EQ(files_, 2u);
  ASSERT_EQ(expected_charts_, 3 * files_);
  const auto result = chromium(page_, "profile-dom", "--dump-dom");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string& dom = result.out;
  EXPECT_NE(dom.find("<title>" + title_ + "</title>"), std::string::npos) << dom.substr(0, 500);
  EXPECT_NE(dom.find("<h1>" + title_ + "</h1>"), std::string::npos);
  EXPECT_NE(dom.find("</body></html>"), std::string::npos);  // parsed to the end
  EXPECT_EQ(count(dom, "<svg"), expected_charts_);
  EXPECT_EQ(count(dom, "</svg>"), expected_charts_);
  EXPECT_EQ(console_messages(result.err), std::vector<std::string>{}) << result.err;
}

// The console check above can only fail if this chromium logs what it looks
// for: a page with a console error and an uncaught exception must trip it.
TEST_F(ReportInBrowser, ConsoleCheckSeesErrorsOfABrokenPage) {
  const auto broken = dir_.path() / "broken.html";
  std::ofstream(broken) << "<!DOCTYPE html><html><body><script>console.error('deliberate');"
                           "undefined_function();</script></body></html>";
  const auto result = chromium(broken, "profile-broken", "--dump-dom");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto messages = console_messages(result.err);
  ASSERT_EQ(messages.size(), 2u) << result.err;
  EXPECT_NE(messages[0].find("\"deliberate\""), std::string::npos) << messages[0];
  EXPECT_NE(messages[1].find("Uncaught ReferenceError: undefined_function"), std::string::npos) << messages[1];
}

TEST_F(ReportInBrowser, ScreenshotIsAPngOfTheWindowSize) {
  const auto png = dir_.path() / "report.png";
  const auto result = chromium(page_, "profile-shot", "--screenshot='" + png.string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_TRUE(std::filesystem::exists(png)) << result.err;
  std::ifstream in(png, std::ios::binary);
  std::array<unsigned char, 24> head{};
  in.read(reinterpret_cast<char*>(head.data()), head.size());
  ASSERT_EQ(in.gcount(), 24);
  const std::array<unsigned char, 8> signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_TRUE(std::equal(signature.begin(), signature.end(), head.begin()));
  EXPECT_EQ(std::string(head.begin() + 12, head.begin() + 16), "IHDR");
  const auto be32 = [&](int at) {
    return (std::uint32_t{head[at]} << 24) | (std::uint32_t{head[at + 1]} << 16) |
           (std::uint32_t{head[at + 2]} << 8) | std::uint32_t{head[at + 3]};
  };
  EXPECT_EQ(be32(16), static_cast<std::uint32_t>(kWidth));
  EXPECT_EQ(be32(20), static_cast<std::uint32_t>(kHeight));
  EXPECT_GT(std::filesystem::file_size(png), 10'000u);  // not a blank page
}

}  // namespace
}  // namespace fhelium
