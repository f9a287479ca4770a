// Names and validation of the matvec configuration.
#include "workloads/matvec/matvec_config.h"

#include "fhe/core/error.h"

namespace fhe::workloads {

std::string_view method_name(MatvecMethod method) {
  return method == MatvecMethod::diagonal ? "diagonal" : "bsgs";
}

std::string_view policy_name(DiagonalPolicy policy) {
  switch (policy) {
    case DiagonalPolicy::batch: return "batch";
    case DiagonalPolicy::loop: return "loop";
    case DiagonalPolicy::lazy_moddown: return "lazy-moddown";
  }
  return "?";
}

MatvecMethod parse_method(std::string_view text) {
  if (text == "diagonal") return MatvecMethod::diagonal;
  if (text == "bsgs") return MatvecMethod::bsgs;
  throw InvalidArgument("unknown matvec method '" + std::string(text) + "' (diagonal or bsgs)");
}

DiagonalPolicy parse_policy(std::string_view text) {
  if (text == "batch") return DiagonalPolicy::batch;
  if (text == "loop") return DiagonalPolicy::loop;
  if (text == "lazy-moddown") return DiagonalPolicy::lazy_moddown;
  throw InvalidArgument("unknown diagonal policy '" + std::string(text) + "' (batch, loop or lazy-moddown)");
}

void validate(const MatvecConfig& config, std::size_t slots) {
  const auto d = static_cast<std::size_t>(config.dim);
  if (config.dim < 2 || (d & (d - 1)) != 0 || d > slots) {
    throw InvalidArgument("matvec dimension " + std::to_string(config.dim) +
                          " must be a power of two in [2, " + std::to_string(slots) +
                          "] (the slot count)");
  }
  if (config.hoist < 1) throw InvalidArgument("--hoist must be at least 1");
  if (config.batch < 1) throw InvalidArgument("--batch must be at least 1");
  if (config.workers < 1) throw InvalidArgument("--workers must be at least 1");
  if (config.baby_steps) {
    if (config.method != MatvecMethod::bsgs) {
      throw InvalidArgument("--baby-steps applies only to --method bsgs (got --baby-steps " +
                            std::to_string(*config.baby_steps) + " with --method " +
                            std::string(method_name(config.method)) + ")");
    }
    const int g = *config.baby_steps;
    if (g < 2 || g > config.dim) {
      throw InvalidArgument("--baby-steps " + std::to_string(g) + " must be in [2, " +
                            std::to_string(config.dim) + "] (the dimension)");
    }
  }
}

}  // namespace fhe::workloads
