// Uses the installed headers and library: a strict radix plan at a preset.
#include <cstdio>

#include "fhe/ntt/host_transform.h"
#include "fhe/ntt/registry.h"
#include "fhe/params/preset.h"

int main() {
  const fhe::Preset& preset = fhe::preset_by_name("slots8192-scale40-levels7-int64");
  const auto moduli = preset.qp_primes();
  auto plan = fhe::ntt::make_plan("radix4_compact", {}, preset.log_n, moduli, preset.word);
  auto data = fhe::ntt::random_rows(*plan, plan->all_rows(), 7);
  const auto input = data;
  plan->forward(data.data(), plan->all_rows());
  plan->inverse(data.data(), plan->all_rows());
  std::printf("%s on %s: roundtrip %s\n", std::string(plan->backend().name).c_str(),
              preset.name.c_str(), data == input ? "exact" : "FAILED");
  return data == input ? 0 : 1;
}
