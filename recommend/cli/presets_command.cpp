// `fhelium presets [--json] [--all]`: the preset table.
#include <iostream>

#include <nlohmann/json.hpp>

#include "fhe/params/preset.h"
#include "recommend/cli/commands.h"
#include "recommend/text_table.h"

namespace fhelium::cli {
namespace {

nlohmann::json preset_json(const fhe::Preset& p) {
  return {{"name", p.name},
          {"log_n", p.log_n},
          {"slots", p.slots()},
          {"levels", p.levels},
          {"q_count", p.q_count()},
          {"p_count", p.p_count},
          {"dnum", p.dnum()},
          {"word", fhe::word_type_name(p.word)},
          {"scale_prime_bits", p.scale_bits},
          {"base_prime_bits", p.base_prime_bits()},
          {"special_prime_bits", p.special_prime_bits()},
          {"log2_qp", p.log2_qp()},
          {"security_budget_bits", fhe::security_budget_bits(p.log_n)},
          {"test_only", p.test_only},
          {"q_primes", p.q_primes},
          {"p_primes", p.p_primes},
          {"primes_hash", fhe::preset_primes_hash(p)}};
}

}  // namespace

void add_presets_command(CLI::App& app) {
  auto* command = app.add_subcommand("presets", "List the CKKS parameter presets");
  auto json = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "Print JSON (with the primes) instead of a table");
  command->add_flag("--all", *all, "Include the small test-only presets");
  command->callback([json, all] {
    nlohmann::json list = nlohmann::json::array();
    TextTable table({"name", "logN", "slots", "L", "Q", "P", "dnum", "bits scale/base/P",
                     "log2 QP", "budget"});
    for (const fhe::Preset& p : fhe::all_presets()) {
      if (p.test_only && !*all) continue;
      list.push_back(preset_json(p));
      const int budget = fhe::security_budget_bits(p.log_n);
      table.add_row({p.name, std::to_string(p.log_n), std::to_string(p.slots()),
                     std::to_string(p.levels), std::to_string(p.q_count()),
                     std::to_string(p.p_count), std::to_string(p.dnum()),
                     std::to_string(p.scale_bits) + "/" + std::to_string(p.base_prime_bits()) + "/" +
                         std::to_string(p.special_prime_bits()),
                     format_number(p.log2_qp(), 1),
                     p.test_only ? "test only" : std::to_string(budget)});
    }
    if (*json) {
      std::cout << list.dump(2) << '\n';
    } else {
      table.print(std::cout);
    }
  });
}

}  // namespace fhelium::cli
