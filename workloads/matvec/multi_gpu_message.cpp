// Encoding and strict decoding of the rank message.
#include "workloads/matvec/multi_gpu_message.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "fhe/core/error.h"

namespace fhe::workloads {
namespace {

constexpr std::string_view kMagic = "fhelium-matvec-rank";
constexpr int kVersion = 1;

std::string hex(const NcclIdBytes& bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

NcclIdBytes unhex(const std::string& text) {
  NcclIdBytes bytes{};
  if (text.size() != 2 * bytes.size()) {
    throw InvalidArgument("rank message: nccl_id has " + std::to_string(text.size()) + " hex digits, expected " +
                          std::to_string(2 * bytes.size()));
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    unsigned value = 0;
    const char* first = text.data() + 2 * i;
    const auto [end, error] = std::from_chars(first, first + 2, value, 16);
    if (error != std::errc() || end != first + 2) throw InvalidArgument("rank message: nccl_id is not hexadecimal");
    bytes[i] = static_cast<char>(value);
  }
  return bytes;
}

template <typename Integer>
Integer parse_integer(const std::map<std::string, std::string>& fields, const std::string& key) {
  const std::string& text = fields.at(key);
  Integer value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw InvalidArgument("rank message: " + key + " '" + text + "' is not an integer");
  }
  return value;
}

const char* const kKeys[] = {"version", "rank",  "gpus",  "preset", "ntt_backend", "engine_seed",
                             "dim",     "method", "policy", "hoist", "baby_steps",  "batch",
                             "workers", "problem_seed", "warmup", "runs", "timeout_s", "nccl_id"};

}  // namespace

std::string encode_rank_message(const RankMessage& message) {
  const MultiGpuMatvecRequest& r = message.request;
  std::ostringstream out;
  out << kMagic << '\n'
      << "version " << kVersion << '\n'
      << "rank " << message.rank << '\n'
      << "gpus " << r.gpus << '\n'
      << "preset " << r.preset << '\n'
      << "ntt_backend " << r.ntt_backend << '\n'
      << "engine_seed " << r.engine_seed << '\n'
      << "dim " << r.config.dim << '\n'
      << "method " << method_name(r.config.method) << '\n'
      << "policy " << policy_name(r.config.policy) << '\n'
      << "hoist " << r.config.hoist << '\n'
      << "baby_steps " << r.config.baby_steps.value_or(0) << '\n'  // 0: automatic (never a valid g)
      << "batch " << r.config.batch << '\n'
      << "workers " << r.config.workers << '\n'
      << "problem_seed " << r.config.seed << '\n'
      << "warmup " << r.warmup << '\n'
      << "runs " << r.runs << '\n'
      << "timeout_s " << r.timeout_s << '\n'
      << "nccl_id " << hex(message.nccl_id) << '\n';
  return out.str();
}

RankMessage decode_rank_message(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line) || line != kMagic) {
    throw InvalidArgument("rank message: does not start with '" + std::string(kMagic) + "'");
  }
  std::map<std::string, std::string> fields;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size()) {
      throw InvalidArgument("rank message: malformed line '" + line + "'");
    }
    const std::string key = line.substr(0, space);
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      throw InvalidArgument("rank message: unknown key '" + key + "'");
    }
    if (!fields.emplace(key, line.substr(space + 1)).second) {
      throw InvalidArgument("rank message: key '" + key + "' repeated");
    }
  }
  for (const char* key : kKeys) {
    if (!fields.count(key)) throw InvalidArgument(std::string("rank message: key '") + key + "' missing");
  }
  if (parse_integer<int>(fields, "version") != kVersion) {
    throw InvalidArgument("rank message: version " + fields.at("version") + " (this binary speaks " +
                          std::to_string(kVersion) + ")");
  }
  RankMessage message;
  MultiGpuMatvecRequest& r = message.request;
  message.rank = parse_integer<int>(fields, "rank");
  r.gpus = parse_integer<int>(fields, "gpus");
  r.preset = fields.at("preset");
  r.ntt_backend = fields.at("ntt_backend");
  r.engine_seed = parse_integer<std::uint64_t>(fields, "engine_seed");
  r.config.dim = parse_integer<int>(fields, "dim");
  r.config.method = parse_method(fields.at("method"));
  r.config.policy = parse_policy(fields.at("policy"));
  r.config.hoist = parse_integer<int>(fields, "hoist");
  if (const int g = parse_integer<int>(fields, "baby_steps"); g != 0) r.config.baby_steps = g;
  r.config.batch = parse_integer<int>(fields, "batch");
  r.config.workers = parse_integer<int>(fields, "workers");
  r.config.seed = parse_integer<std::uint64_t>(fields, "problem_seed");
  r.warmup = parse_integer<int>(fields, "warmup");
  r.runs = parse_integer<int>(fields, "runs");
  r.timeout_s = parse_integer<int>(fields, "timeout_s");
  message.nccl_id = unhex(fields.at("nccl_id"));
  if (message.rank < 0 || message.rank >= r.gpus) {
    throw InvalidArgument("rank message: rank " + std::to_string(message.rank) + " outside 0.." +
                          std::to_string(r.gpus - 1));
  }
  if (r.warmup < 0 || r.runs < 1 || r.timeout_s < 1) {
    throw InvalidArgument("rank message: warmup, runs or timeout_s out of range");
  }
  return message;
}

}  // namespace fhe::workloads
