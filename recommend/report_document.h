// A report as a list of neutral blocks (headings, text, tables, charts),
// written once by the report builder and rendered to Markdown and to a
// self-contained HTML page, so the two files never say different things.
#pragma once

#include <string>
#include <vector>

namespace fhelium {

struct ReportBlock {
  enum class Kind { heading, paragraph, warning, table, list, code, svg };
  Kind kind = Kind::paragraph;
  int level = 2;     // heading level
  std::string text;  // heading/paragraph/warning/code text; svg markup
  std::string caption;  // svg: what the chart shows (the Markdown file prints it)
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> items;
};

struct ReportDocument {
  std::string title;
  std::vector<ReportBlock> blocks;

  void heading(std::string text, int level = 2);
  void paragraph(std::string text);
  void warning(std::string text);
  void code(std::string text);
  void list(std::vector<std::string> items);
  void table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows);
  void svg(std::string markup, std::string caption);
};

std::string render_markdown(const ReportDocument& document);
// No scripts, no external stylesheets, fonts or images.
std::string render_html(const ReportDocument& document);

}  // namespace fhelium
