// The two renderers. Text is plain (no markup inside), escaped for each
// target: `|` in Markdown table cells, XML specials in HTML.
#include "recommend/report_document.h"

#include <sstream>

#include "recommend/report_svg.h"

namespace fhelium {
namespace {

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

void ReportDocument::heading(std::string text, int level) {
  blocks.push_back({ReportBlock::Kind::heading, level, std::move(text), {}, {}, {}, {}});
}
void ReportDocument::paragraph(std::string text) {
  blocks.push_back({ReportBlock::Kind::paragraph, 0, std::move(text), {}, {}, {}, {}});
}
void ReportDocument::warning(std::string text) {
  blocks.push_back({ReportBlock::Kind::warning, 0, std::move(text), {}, {}, {}, {}});
}
void ReportDocument::code(std::string text) {
  blocks.push_back({ReportBlock::Kind::code, 0, std::move(text), {}, {}, {}, {}});
}
void ReportDocument::list(std::vector<std::string> items) {
  blocks.push_back({ReportBlock::Kind::list, 0, {}, {}, {}, {}, std::move(items)});
}
void ReportDocument::table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows) {
  blocks.push_back({ReportBlock::Kind::table, 0, {}, {}, std::move(header), std::move(rows), {}});
}
void ReportDocument::svg(std::string markup, std::string caption) {
  blocks.push_back({ReportBlock::Kind::svg, 0, std::move(markup), std::move(caption), {}, {}, {}});
}

std::string render_markdown(const ReportDocument& document) {
  std::ostringstream out;
  out << "# " << document.title << "\n\n";
  for (const ReportBlock& b : document.blocks) {
    switch (b.kind) {
      case ReportBlock::Kind::heading: out << std::string(b.level, '#') << ' ' << b.text << "\n\n"; break;
      case ReportBlock::Kind::paragraph: out << b.text << "\n\n"; break;
      case ReportBlock::Kind::warning: out << "> **WARNING:** " << b.text << "\n\n"; break;
      case ReportBlock::Kind::code: out << "```cpp\n" << b.text << "\n```\n\n"; break;
      case ReportBlock::Kind::list:
        for (const auto& item : b.items) out << "- " << item << '\n';
        out << '\n';
        break;
      case ReportBlock::Kind::table: {
        out << '|';
        for (const auto& h : b.header) out << ' ' << md_cell(h) << " |";
        out << "\n|";
        for (std::size_t i = 0; i < b.header.size(); ++i) out << "---|";
        out << '\n';
        for (const auto& row : b.rows) {
          out << '|';
          for (const auto& cell : row) out << ' ' << md_cell(cell) << " |";
          out << '\n';
        }
        out << '\n';
        break;
      }
      case ReportBlock::Kind::svg: out << "*Chart (in report.html): " << b.caption << "*\n\n"; break;
    }
  }
  return out.str();
}

std::string render_html(const ReportDocument& document) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << xml_escape(document.title) << "</title>\n<style>\n"
      << "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}\n"
      << "table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #bbb;padding:3px 6px;"
         "font-size:13px;vertical-align:top}th{background:#eef}\n"
      << ".warning{background:#fff3cd;border:1px solid #e0b000;padding:.5em;margin:.5em 0}\n"
      << "pre{background:#f4f4f4;padding:.5em;overflow-x:auto}figure{margin:1em 0}\n"
      << "</style>\n</head>\n<body>\n<h1>" << xml_escape(document.title) << "</h1>\n";
  for (const ReportBlock& b : document.blocks) {
    switch (b.kind) {
      case ReportBlock::Kind::heading:
        out << "<h" << b.level << '>' << xml_escape(b.text) << "</h" << b.level << ">\n";
        break;
      case ReportBlock::Kind::paragraph: out << "<p>" << xml_escape(b.text) << "</p>\n"; break;
      case ReportBlock::Kind::warning:
        out << "<div class=\"warning\"><strong>WARNING:</strong> " << xml_escape(b.text) << "</div>\n";
        break;
      case ReportBlock::Kind::code: out << "<pre><code>" << xml_escape(b.text) << "</code></pre>\n"; break;
      case ReportBlock::Kind::list:
        out << "<ul>\n";
        for (const auto& item : b.items) out << "<li>" << xml_escape(item) << "</li>\n";
        out << "</ul>\n";
        break;
      case ReportBlock::Kind::table:
        out << "<table>\n<tr>";
        for (const auto& h : b.header) out << "<th>" << xml_escape(h) << "</th>";
        out << "</tr>\n";
        for (const auto& row : b.rows) {
          out << "<tr>";
          for (const auto& cell : row) out << "<td>" << xml_escape(cell) << "</td>";
          out << "</tr>\n";
        }
        out << "</table>\n";
        break;
      case ReportBlock::Kind::svg:
        out << "<figure>\n" << b.text << "\n<figcaption>" << xml_escape(b.caption) << "</figcaption>\n</figure>\n";
        break;
    }
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace fhelium
