// The CSV reader and ncu's raw-page layout: quoted fields with commas,
// doubled quotes and line breaks; the page found among ncu's own messages;
// numbers with thousands separators; unit prefixes.
#include <gtest/gtest.h>

#include <cmath>

#include "recommend/ncu_csv.h"
#include "tests/support/process.h"

namespace fhelium {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(NcuCsv, QuotedFieldsKeepCommasQuotesAndLineBreaks) {
  EXPECT_EQ(parse_csv("a,\"b, c\",d\n"), (Records{{"a", "b, c", "d"}}));
  EXPECT_EQ(parse_csv("\"say \"\"hi\"\"\",x"), (Records{{"say \"hi\"", "x"}}));
  EXPECT_EQ(parse_csv("\"two\nlines\",2\r\n3,4\r\n"), (Records{{"two\nlines", "2"}, {"3", "4"}}));
  EXPECT_EQ(parse_csv("\"\",,\"\"\n"), (Records{{"", "", ""}}));
  EXPECT_EQ(parse_csv("1,2\n\n3\n"), (Records{{"1", "2"}, {"3"}}));  // a blank line is no record
  EXPECT_THROW(parse_csv("\"open,1\n2"), NcuOutputError);
}

TEST(NcuCsv, RawPageIsFoundAmongToolAndProgramOutput) {
  const std::string page =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
      "\"\",\"\",\"nsecond\"\n"
      "\"0\",\"void k<unsigned long, 4>(Args<T1>)\",\"1,024\"\n"
      "\"1\",\"void k<unsigned long, 2>(Args<T1>)\",\"n/a\"\n";
  const NcuRawPage raw = parse_ncu_raw_page("==PROF== Connected to process 7 (fhelium)\nprogram says \"ID\"\n" +
                                            page + "==PROF== Disconnected from process 7\n");
  EXPECT_EQ(raw.columns, (std::vector<std::string>{"ID", "Kernel Name", "gpu__time_duration.sum"}));
  EXPECT_EQ(raw.units, (std::vector<std::string>{"", "", "nsecond"}));
  ASSERT_EQ(raw.kernels.size(), 2u);
  EXPECT_EQ(raw.kernels[0][1], "void k<unsigned long, 4>(Args<T1>)");
  EXPECT_EQ(raw.column("gpu__time_duration.sum"), 2);
  EXPECT_EQ(raw.column("dram__bytes_read.sum"), -1);
}

TEST(NcuCsv, MalformedPagesAreRefused) {
  EXPECT_THROW(parse_ncu_raw_page("==ERROR== ERR_NVGPUCTRPERM\n"), NcuOutputError);
  // A header without the units row, and a row with a field missing.
  EXPECT_THROW(parse_ncu_raw_page("\"ID\",\"x\"\n\"0\",\"1\"\n"), NcuOutputError);
  EXPECT_THROW(parse_ncu_raw_page("\"ID\",\"x\"\n\"\",\"byte\"\n\"0\"\n"), NcuOutputError);
}

TEST(NcuCsv, NumbersAndUnits) {
  EXPECT_EQ(parse_ncu_number("20,447,232"), 20447232.0);
  EXPECT_EQ(parse_ncu_number("23.50"), 23.5);
  EXPECT_EQ(parse_ncu_number("-1.5e3"), -1500.0);
  EXPECT_TRUE(std::isnan(parse_ncu_number("n/a")));
  EXPECT_TRUE(std::isnan(parse_ncu_number("")));
  EXPECT_THROW(parse_ncu_number("12 ms"), NcuOutputError);
  EXPECT_THROW(parse_ncu_number(","), NcuOutputError);
  EXPECT_EQ(to_base_unit(2.5, "usecond"), 2500.0);
  EXPECT_EQ(to_base_unit(3, "msecond"), 3e6);
  EXPECT_EQ(to_base_unit(7, "nsecond"), 7.0);
  EXPECT_EQ(to_base_unit(13184, "ns"), 13184.0);  // as the H200's ncu prints durations
  EXPECT_EQ(to_base_unit(1.5, "us"), 1500.0);
  EXPECT_EQ(to_base_unit(2, "ms"), 2e6);
  EXPECT_EQ(to_base_unit(2, "MB"), 2e6);
  EXPECT_EQ(to_base_unit(2, "KiB"), 2048.0);
  EXPECT_EQ(to_base_unit(1.5, "Mbyte"), 1.5e6);
  EXPECT_EQ(to_base_unit(2, "Ksector"), 2000.0);
  EXPECT_EQ(to_base_unit(34.82, "Kbyte/block"), 34820.0);
  EXPECT_EQ(to_base_unit(124, "register/thread"), 124.0);
  EXPECT_EQ(to_base_unit(2, "block"), 2.0);
  EXPECT_EQ(to_base_unit(23.5, "%"), 23.5);
  EXPECT_EQ(to_base_unit(4, "Kilo"), 4.0);  // not a known unit: unchanged
}

TEST(NcuCsv, FixtureHasOneRowPerKernel) {
  const NcuRawPage raw = parse_ncu_raw_page(
      fhelium::testing::read_text(std::filesystem::path(FHELIUM_TEST_DATA_DIR) / "profile_ncu_raw_page.csv"));
  EXPECT_EQ(raw.columns.size(), 37u);
  ASSERT_EQ(raw.kernels.size(), 3u);
  EXPECT_EQ(raw.kernels[2][raw.column("Kernel Name")],
            "void fhe::ntt::gpu::<unnamed>::ntt_shared_region<unsigned long, true, 0>(fhe::ntt::gpu::PassArgs<T1>)");
  EXPECT_EQ(raw.units[raw.column("gpu__time_duration.sum")], "ns");
}

}  // namespace
}  // namespace fhelium
