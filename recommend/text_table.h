// Plain-text tables with aligned columns, for the command line's output.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace fhelium {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// printf-style formatting of one number into a string.
std::string format_number(double value, int decimals);
// Scientific notation with `digits` significant digits (errors, tolerances).
std::string format_scientific(double value, int digits);

}  // namespace fhelium
