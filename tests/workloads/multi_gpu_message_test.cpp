// The rank message (multi_gpu_message.h): every field survives encoding,
// and a message with anything missing, repeated, unknown or malformed is
// refused rather than guessed.
#include <gtest/gtest.h>

#include <string>

#include "fhe/core/error.h"
#include "workloads/matvec/multi_gpu_message.h"

namespace fhe::workloads {
namespace {

RankMessage sample_message() {
  RankMessage message;
  message.rank = 2;
  message.request = {.preset = "slots32768-scale40-levels34-int64",
                     .ntt_backend = "radix16_compact",
                     .engine_seed = 18446744073709551615ull,
                     .config = {.dim = 128, .method = MatvecMethod::bsgs, .policy = DiagonalPolicy::loop,
                                .hoist = 32, .baby_steps = 64, .batch = 7, .workers = 3, .seed = 99},
                     .gpus = 4,
                     .warmup = 0,
                     .runs = 9,
                     .timeout_s = 1234};
  for (std::size_t i = 0; i < message.nccl_id.size(); ++i) message.nccl_id[i] = static_cast<char>(255 - i);
  return message;
}

// The encoded sample with `line` (a whole "key value" line) replaced.
std::string with_line_replaced(const std::string& key, const std::string& replacement) {
  std::string text = encode_rank_message(sample_message());
  const auto start = text.find("\n" + key + " ") + 1;
  const auto end = text.find('\n', start) + 1;
  return text.replace(start, end - start, replacement);
}

void expect_refused(const std::string& text, const std::string& must_mention) {
  try {
    decode_rank_message(text);
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find(must_mention), std::string::npos) << error.what();
  }
}

TEST(MultiGpuMessage, EveryFieldSurvivesTheRoundTrip) {
  const RankMessage sent = sample_message();
  const RankMessage got = decode_rank_message(encode_rank_message(sent));
  EXPECT_EQ(got.rank, 2);
  EXPECT_EQ(got.nccl_id, sent.nccl_id);
  const MultiGpuMatvecRequest& r = got.request;
  EXPECT_EQ(r.preset, "slots32768-scale40-levels34-int64");
  EXPECT_EQ(r.ntt_backend, "radix16_compact");
  EXPECT_EQ(r.engine_seed, 18446744073709551615ull);
  EXPECT_EQ(r.config.dim, 128);
  EXPECT_EQ(r.config.method, MatvecMethod::bsgs);
  EXPECT_EQ(r.config.policy, DiagonalPolicy::loop);
  EXPECT_EQ(r.config.hoist, 32);
  EXPECT_EQ(r.config.baby_steps, 64);  // every rank must split d = g * (d / g) alike
  EXPECT_EQ(r.config.batch, 7);
  EXPECT_EQ(r.config.workers, 3);
  EXPECT_EQ(r.config.seed, 99u);
  EXPECT_EQ(r.gpus, 4);
  EXPECT_EQ(r.warmup, 0);
  EXPECT_EQ(r.runs, 9);
  EXPECT_EQ(r.timeout_s, 1234);
}

TEST(MultiGpuMessage, TheAutomaticBabyStepsStayAutomatic) {
  RankMessage sent = sample_message();
  sent.request.config.baby_steps.reset();
  EXPECT_FALSE(decode_rank_message(encode_rank_message(sent)).request.config.baby_steps.has_value());
}

TEST(MultiGpuMessage, MalformedMessagesAreRefused) {
  const std::string good = encode_rank_message(sample_message());
  expect_refused("", "does not start with");
  expect_refused("hello\n" + good, "does not start with");
  expect_refused(with_line_replaced("dim", ""), "key 'dim' missing");
  expect_refused(with_line_replaced("baby_steps", ""), "key 'baby_steps' missing");
  expect_refused(good + "dim 64\n", "key 'dim' repeated");
  expect_refused(good + "colour blue\n", "unknown key 'colour'");
  expect_refused(good + "justakey\n", "malformed line 'justakey'");
  expect_refused(with_line_replaced("dim", "dim 16x\n"), "dim '16x' is not an integer");
  expect_refused(with_line_replaced("engine_seed", "engine_seed -1\n"), "engine_seed '-1' is not an integer");
  expect_refused(with_line_replaced("nccl_id", "nccl_id abcd\n"), "nccl_id has 4 hex digits, expected 256");
  expect_refused(with_line_replaced("nccl_id", "nccl_id " + std::string(256, 'g') + "\n"), "not hexadecimal");
  expect_refused(with_line_replaced("rank", "rank 4\n"), "rank 4 outside 0..3");
  expect_refused(with_line_replaced("version", "version 2\n"), "version 2");
  expect_refused(with_line_replaced("runs", "runs 0\n"), "out of range");
  expect_refused(with_line_replaced("method", "method diagonl\n"), "diagonl");
}

}  // namespace
}  // namespace fhe::workloads
