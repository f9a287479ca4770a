// Integer options as plain decimal numbers. CLI11 (2.1) reads them with
// base 0 and no range check on unsigned targets: `--runs 010` was 8 runs,
// `--seed 0x10` 16, and `--seed -1` or a 25-digit seed silently became
// 2^64 - 1, all recorded in the evidence as if asked for.
#include <charconv>
#include <cstdint>
#include <string>

#include "recommend/cli/commands.h"

namespace fhelium::cli {
namespace {

// "" when `text` is a decimal integer of the option's kind that fits 64
// bits (the option's own type may narrow further; CLI11 checks signed ones).
std::string decimal_error(const std::string& text, bool is_signed) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const bool negative = is_signed && first != last && *first == '-';
  const char* digits = negative ? first + 1 : first;
  const bool plain = digits != last && (*digits != '0' || digits + 1 == last);
  const auto parses_whole = [&](auto value) {
    const auto [end, error] = std::from_chars(first, last, value);
    return error == std::errc{} && end == last;
  };
  if (plain && (is_signed ? parses_whole(std::int64_t{0}) : parses_whole(std::uint64_t{0}))) return "";
  return "'" + text + "' is not a plain decimal number within 64 bits (" +
         (is_signed ? "an optional '-', then digits" : "digits only") + ", no leading zero)";
}

void require_in(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type != "INT" && type != "UINT") continue;
    const bool is_signed = type == "INT";
    option->check(CLI::Validator(
        [is_signed](std::string& text) { return decimal_error(text, is_signed); }, "", "decimal"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) require_in(*sub);
}

}  // namespace

void require_decimal_integers(CLI::App& app) { require_in(app); }

}  // namespace fhelium::cli
