// The chart: labels on the left, plot on the right, the axis spanning the
// values drawn (ratios start near 1, so the axis does not start at 0: the
// differences that decide are a few percent and would vanish otherwise).
#include "recommend/report_svg.h"

#include <algorithm>
#include <sstream>

#include "recommend/text_table.h"

namespace fhelium {
namespace {

constexpr double kWidth = 760, kLabelWidth = 300, kRight = 20, kRowHeight = 16, kTop = 28;

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_chart(const ChartSpec& spec) {
  double lo = INFINITY, hi = -INFINITY;
  auto take = [&](double v) {
    if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  for (const ChartRow& row : spec.rows) {
    take(row.bar), take(row.low), take(row.high);
    for (double d : row.dots) take(d);
  }
  take(spec.reference);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  const double pad = std::max((hi - lo) * 0.05, 1e-3);
  const double axis_lo = std::max(0.0, lo - pad), axis_hi = hi + pad;
  const double x0 = kLabelWidth, x1 = kWidth - kRight;
  auto x = [&](double v) { return x0 + (v - axis_lo) / (axis_hi - axis_lo) * (x1 - x0); };

  std::ostringstream body;
  double y = kTop;
  std::string group;
  for (const ChartRow& row : spec.rows) {
    if (!row.group.empty() && row.group != group) {
      group = row.group;
      body << "<text x=\"4\" y=\"" << y + 12 << "\" font-weight=\"bold\">" << xml_escape(group) << "</text>\n";
      y += kRowHeight;
    }
    const double mid = y + kRowHeight / 2;
    body << "<text x=\"" << x0 - 6 << "\" y=\"" << mid + 4 << "\" text-anchor=\"end\">"
         << xml_escape(row.label) << "</text>\n";
    if (!std::isnan(row.bar))
      body << "<rect x=\"" << x0 << "\" y=\"" << y + 3 << "\" width=\"" << std::max(0.5, x(row.bar) - x0)
           << "\" height=\"" << kRowHeight - 6 << "\" fill=\"#6a8fc7\"><title>" << xml_escape(row.label)
           << ": " << format_number(row.bar, 4) << "</title></rect>\n";
    if (!std::isnan(row.low) && !std::isnan(row.high))
      body << "<line x1=\"" << x(row.low) << "\" x2=\"" << x(row.high) << "\" y1=\"" << mid << "\" y2=\""
           << mid << "\" stroke=\"#222\" stroke-width=\"2\"/>\n";
    for (double d : row.dots)
      body << "<circle cx=\"" << x(d) << "\" cy=\"" << mid << "\" r=\"3\" fill=\"#c0392b\"><title>"
           << format_number(d, 4) << "</title></circle>\n";
    y += kRowHeight;
  }
  const double height = y + 34;
  std::ostringstream svg;
  svg << "<svg width=\"" << kWidth << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n"
      << "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(spec.title) << "</text>\n"
      << body.str();
  // Axis with five ticks.
  svg << "<line x1=\"" << x0 << "\" x2=\"" << x1 << "\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\"#555\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double v = axis_lo + (axis_hi - axis_lo) * i / 4;
    svg << "<text x=\"" << x(v) << "\" y=\"" << y + 13 << "\" text-anchor=\"middle\">" << format_number(v, 3)
        << "</text>\n";
  }
  svg << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << y + 28 << "\" text-anchor=\"middle\">"
      << xml_escape(spec.axis_label) << "</text>\n";
  if (!std::isnan(spec.reference))
    svg << "<line x1=\"" << x(spec.reference) << "\" x2=\"" << x(spec.reference) << "\" y1=\"" << kTop
        << "\" y2=\"" << y << "\" stroke=\"#888\" stroke-dasharray=\"4 3\"><title>"
        << xml_escape(spec.reference_label) << "</title></line>\n";
  svg << "</svg>";
  return svg.str();
}

}  // namespace fhelium
