// Reading Nsight Compute's CSV raw page (`ncu --csv --page raw`): a header
// row of column names (fixed columns such as "ID" and "Kernel Name", then
// one column per metric), a row of units, then one row per profiled kernel
// launch. Kernel names are quoted and hold commas, and numbers may carry
// thousands separators, hence a real CSV reader.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fhelium {

// Output that is not the raw page we asked for (no header, no units row).
class NcuOutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// RFC 4180 records: fields separated by commas, optionally quoted; a quoted
// field may hold commas, line breaks and doubled quotes (""). Accepts LF and
// CRLF line ends; a blank line is no record. Throws NcuOutputError on an
// unterminated quoted field.
std::vector<std::vector<std::string>> parse_csv(std::string_view text);

struct NcuRawPage {
  std::vector<std::string> columns;
  std::vector<std::string> units;  // one per column; empty for the fixed columns
  std::vector<std::vector<std::string>> kernels;  // one row per kernel launch, in launch order

  // Index of the column named `name`, or -1.
  int column(std::string_view name) const;
};

// Finds the raw page in `output`: lines before its header (the `"ID",...`
// row), such as ncu's "==PROF==" messages or the program's own output, are
// skipped, and so is anything from the next "==" line on. Throws
// NcuOutputError when there is no header or no units row.
NcuRawPage parse_ncu_raw_page(std::string_view output);

// "1,234.5" -> 1234.5. Empty fields and "n/a" give NaN; any other text
// throws NcuOutputError naming it.
double parse_ncu_number(std::string_view field);

// A value in `unit` expressed in its base unit: times ("ns", "usecond", ...)
// in nanoseconds; bytes and counts (byte, sector, inst, cycle, ...) without
// their K/M/G/T prefix (decimal, as ncu prints them; KiB/MiB/GiB binary); a
// unit per something ("Kbyte/block") by its numerator. Other units (%,
// block, register/thread) are returned unchanged.
double to_base_unit(double value, std::string_view unit);

}  // namespace fhelium
