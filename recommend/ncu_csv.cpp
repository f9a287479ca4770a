// CSV records and the raw page's layout; numbers and unit prefixes.
#include "recommend/ncu_csv.h"

#include <cmath>
#include <cstdlib>

namespace fhelium {

std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;        // inside a quoted field
  bool field_started = false; // the current record has at least one field or separator
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    if (field_started) {
      end_field();
      records.push_back(std::move(record));
    }
    record.clear();
    field_started = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      end_field();
      field_started = true;
    } else if (c == '\n') {
      end_record();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      // CR of a CRLF line end: the LF ends the record.
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw NcuOutputError("CSV ends inside a quoted field");
  end_record();
  return records;
}

int NcuRawPage::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

NcuRawPage parse_ncu_raw_page(std::string_view output) {
  // The header is the first line that starts with the "ID" column.
  std::size_t start = std::string_view::npos;
  for (std::size_t at = 0; at < output.size();) {
    const std::size_t end = output.find('\n', at);
    const std::string_view line = output.substr(at, end == std::string_view::npos ? end : end - at);
    if (line.rfind("\"ID\",", 0) == 0) {
      start = at;
      break;
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  if (start == std::string_view::npos)
    throw NcuOutputError("no raw-page header (a row starting with \"ID\") in ncu's output");
  std::string_view page = output.substr(start);
  if (const std::size_t tool_line = page.find("\n=="); tool_line != std::string_view::npos)
    page = page.substr(0, tool_line + 1);

  const auto records = parse_csv(page);
  NcuRawPage out;
  out.columns = records.front();
  if (records.size() < 2 || records[1].size() != out.columns.size() || !records[1].front().empty())
    throw NcuOutputError("ncu's raw page has no units row after its header");
  out.units = records[1];
  for (std::size_t i = 2; i < records.size(); ++i) {
    if (records[i].size() != out.columns.size())
      throw NcuOutputError("ncu's raw page row " + std::to_string(i - 1) + " has " +
                           std::to_string(records[i].size()) + " fields, its header " +
                           std::to_string(out.columns.size()));
    out.kernels.push_back(records[i]);
  }
  return out;
}

double parse_ncu_number(std::string_view field) {
  if (field.empty() || field == "n/a") return NAN;
  std::string digits;
  for (char c : field)
    if (c != ',') digits += c;
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size())
    throw NcuOutputError("'" + std::string(field) + "' is not a number");
  return value;
}

double to_base_unit(double value, std::string_view unit) {
  // Per-something units ("Kbyte/block") scale by their numerator's prefix.
  if (const std::size_t slash = unit.find('/'); slash != std::string_view::npos)
    return to_base_unit(value, unit.substr(0, slash));
  // ncu has printed times both ways ("ns" on the H200's ncu, "nsecond" elsewhere).
  static constexpr std::pair<std::string_view, double> kTimes[] = {
      {"s", 1e9}, {"second", 1e9}, {"ms", 1e6}, {"msecond", 1e6}, {"us", 1e3}, {"usecond", 1e3},
      {"ns", 1.0}, {"nsecond", 1.0}};
  for (const auto& [name, factor] : kTimes)
    if (unit == name) return value * factor;
  static constexpr std::pair<std::string_view, double> kBytes[] = {
      {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  for (const auto& [name, factor] : kBytes)
    if (unit == name) return value * factor;
  static constexpr std::string_view kCounted[] = {"byte", "sector", "inst", "cycle", "warp", "request",
                                                  "wavefront", "thread"};
  static constexpr std::pair<char, double> kPrefixes[] = {{'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}};
  if (unit.size() < 2) return value;
  for (const auto& [prefix, factor] : kPrefixes) {
    if (unit.front() != prefix) continue;
    for (std::string_view base : kCounted)
      if (unit.substr(1) == base) return value * factor;
  }
  return value;
}

}  // namespace fhelium
