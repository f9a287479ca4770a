// What every rank of a multi-GPU matvec must agree on (the request), and
// the message that carries it, with the rank and the NCCL unique id, from
// rank 0 to a rank it starts, through an inherited pipe. The message is
// "key value" lines; decoding rejects anything missing, repeated, unknown
// or malformed, so a rank never runs a guessed configuration.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "workloads/matvec/matvec_config.h"

namespace fhe::workloads {

struct MultiGpuMatvecRequest {
  std::string preset;
  std::string ntt_backend;  // the resolved name: every rank uses the same backend
  std::uint64_t engine_seed = 1;  // keys and encryption
  MatvecConfig config;            // config.seed draws the matrix and vector
  int gpus = 1;                   // ranks, one per GPU: rank r runs on cuda:r
  int warmup = 1;
  int runs = 3;
  int timeout_s = 900;  // each rank's limit for the whole run (key generation included)
};

// The bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES), opaque here so that
// this file needs no NCCL header.
using NcclIdBytes = std::array<char, 128>;

struct RankMessage {
  MultiGpuMatvecRequest request;
  int rank = 0;
  NcclIdBytes nccl_id{};
};

std::string encode_rank_message(const RankMessage& message);
// Throws InvalidArgument naming the offending line or key.
RankMessage decode_rank_message(std::string_view text);

}  // namespace fhe::workloads
