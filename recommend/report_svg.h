// Inline SVG for reports: one horizontal chart kind that draws, per row, a
// bar, an interval whisker and dots, on a shared linear axis. Ratio bars,
// score intervals and per-repetition medians are all drawn with it.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace fhelium {

struct ChartRow {
  std::string group;  // a header line is drawn when it changes; empty: none
  std::string label;
  double bar = NAN;                 // NaN: no bar
  double low = NAN, high = NAN;     // NaN: no whisker
  std::vector<double> dots;
};

struct ChartSpec {
  std::string title;
  std::string axis_label;
  double reference = NAN;  // a dashed vertical line (e.g. the near-tie band)
  std::string reference_label;
  std::vector<ChartRow> rows;
};

// A standalone <svg> element (no scripts, no external references).
std::string svg_chart(const ChartSpec& spec);

// &, <, >, " escaped for XML and HTML text and attributes.
std::string xml_escape(const std::string& text);

}  // namespace fhelium
