// fhe::CudaEvaluator: every CKKS operation on the engine's CUDA device, with
// the same words as the CPU fhe::Evaluator for the same engine seed, keys and
// inputs.
//
//   fhe::CkksEngine engine(preset, {.device = "cuda:0", .ntt_backend = "radix16_compact"});
//   engine.generate_keys({1, 2, 4, 8});
//   fhe::CudaEvaluator gpu(engine);            // uploads keys, constants; allocates workspaces
//   fhe::CudaCiphertext a = gpu.make_ciphertext(), out = gpu.make_ciphertext();
//   gpu.upload(engine.encrypt_message(x), a);
//   gpu.multiply_relinearize(a, a, out);       // only enqueues on gpu.stream()
//   fhe::Ciphertext host = gpu.download(out);  // synchronises
//
// Graph-ready: operations take caller-provided outputs (make_ciphertext:
// capacity for 3 parts at level 0), never allocate, never synchronise and
// branch only on metadata (levels, part counts, which key) and on whether
// gpu.stream() is being captured (a single fused key switch then forks its
// ModDown onto a second stream of the evaluator and joins it back), so any
// sequence can be captured with cudaStreamBeginCapture(gpu.stream(), ...)
// and replayed. Workspaces are sized for level 0 at construction, after a
// device-memory estimate (DeviceError with needed vs free bytes).
//
// Every transform uses the engine's device_plan() (one plan over all QP
// rows, RowRange calls). Key switching follows the level's KeySwitchSchedule
// exactly (centered ModUp, 128-bit inner product, RnsScaleDown ModDown).
// Keys are those of the engine at construction (re-create after
// generate_keys). Not thread-safe (shared workspaces), like fhe::Evaluator.
// Every operation makes the evaluator's device current while it runs and
// restores the caller's (cuda::DeviceGuard), so one thread can drive
// evaluators on several GPUs in turn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "evaluator/cuda/cuda_ciphertext.h"
#include "evaluator/cuda/cuda_block_plain.h"
#include "evaluator/cuda/device_keys.h"
#include "evaluator/cuda/level_constants.h"
#include "evaluator/key_switch_schedule.h"
#include "fhe/ckks/engine.h"
#include "fhe/cuda/staged_upload.h"
#include "fhe/cuda/stream.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe {

namespace cuda {
enum class Elementwise;  // evaluator/cuda/eval_kernels.h
struct ExtendedSumArgs;  // evaluator/cuda/eval_kernels.h
struct RotationTerm;     // evaluator/cuda/eval_kernels.h
struct ScaleDownItem;    // evaluator/cuda/eval_kernels.h
struct TermOutput;       // evaluator/cuda/region_key_product.h
}

struct CudaEvaluatorOptions {
  // Test hook: the free device bytes the memory check assumes (0 = ask
  // cudaMemGetInfo).
  std::size_t assume_free_bytes = 0;
  // Device keys already uploaded (another evaluator's keys()), used instead
  // of uploading a copy: rotation-parallel workers on one GPU share one key
  // set (48 GiB of Galois keys for a 128x128 matvec), and so do the engines
  // of several backends that adopt_keys-ed one engine. They must come from
  // the engine's current key set on its device (InvalidArgument otherwise);
  // the memory check then counts no key bytes.
  std::shared_ptr<const cuda::DeviceKeys> shared_keys;
};

struct CudaMemoryEstimate {
  std::size_t key_bytes = 0, workspace_bytes = 0, constant_bytes = 0;
  std::size_t total() const { return key_bytes + workspace_bytes + constant_bytes; }
};

class CudaEvaluator {
 public:
  // Throws InvalidArgument for a CPU engine or one without keys, DeviceError
  // when the estimate exceeds the free device memory.
  explicit CudaEvaluator(const CkksEngine& engine, CudaEvaluatorOptions options = {});
  ~CudaEvaluator();
  CudaEvaluator(const CudaEvaluator&) = delete;
  CudaEvaluator& operator=(const CudaEvaluator&) = delete;

  // What the constructor allocates (keys, workspaces, per-level constants).
  static CudaMemoryEstimate estimate_memory(const CkksEngine& engine);

  const CkksEngine& engine() const { return engine_; }
  cudaStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
  // The device keys, to share with further evaluators of the same engine.
  std::shared_ptr<const cuda::DeviceKeys> keys() const { return keys_; }
  // The device table of all QP moduli by row id, for kernels enqueued on
  // stream() outside the evaluator (fhe::CudaEncryptor).
  const Modulus<std::uint64_t>* device_moduli() const { return moduli_.data(); }

  // A device ciphertext with capacity for any operation's output.
  CudaCiphertext make_ciphertext() const;
  // Host <-> device (ordered on stream(); download synchronises).
  void upload(const Ciphertext& host, CudaCiphertext& device) const;
  void upload(const Plaintext& host, CudaCiphertext& device) const;  // one part
  // Many plaintexts in a row (a matvec's diagonals): each formed in
  // `staging`'s pinned buffers and copied on its stream while the next is
  // formed; on the device once staging.finish() returns. No work may be
  // pending on `device`.
  void upload(const Plaintext& host, CudaCiphertext& device, cuda::StagedUploader& staging) const;
  Ciphertext download(const CudaCiphertext& device) const;
  // Device-to-device copy of words and metadata (restoring inputs).
  void copy(const CudaCiphertext& from, CudaCiphertext& to) const;

  // Outputs may alias inputs for add, sub, negate, multiply_plain (its
  // ciphertext, not its plaintext), multiply, relinearize and
  // multiply_relinearize; not for rescale, drop_level, rotate, conjugate,
  // rotate_many_by_steps. Every operand must be a buffer of this
  // evaluator's shape holding its parts, every output one with room for
  // the result's parts (InvalidArgument otherwise, before any work).
  void add(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const;
  void sub(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const;
  void negate(const CudaCiphertext& a, CudaCiphertext& out) const;
  void multiply_plain(const CudaCiphertext& a, const CudaCiphertext& plain, CudaCiphertext& out) const;
  void multiply(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const;
  void relinearize(const CudaCiphertext& a, CudaCiphertext& out) const;
  void multiply_relinearize(const CudaCiphertext& a, const CudaCiphertext& b, CudaCiphertext& out) const;
  void rescale(const CudaCiphertext& a, CudaCiphertext& out) const;
  void drop_level(const CudaCiphertext& a, int target_level, CudaCiphertext& out) const;
  void rotate(const CudaCiphertext& a, int step, CudaCiphertext& out) const;
  void conjugate(const CudaCiphertext& a, CudaCiphertext& out) const;
  // Hoisted: decompose + ModUp + NTT once, then per step permutation +
  // inner product + ModDown; outs.size() == steps.size().
  void rotate_many_by_steps(const CudaCiphertext& a, const std::vector<int>& steps,
                            std::span<CudaCiphertext> outs) const;

  // Sums of rotations with ONE ModDown (double hoisting), the device twin of
  // Evaluator::accumulate_rotations / mod_down with the same words. Extended
  // ciphertexts (make_extended) hold rows level..L and the P rows: a 2-part
  // sum, or a 1-part plaintext uploaded from CkksEngine::encode_extended.
  // A sum with parts == 0 starts at the first call's terms. Terms go to the
  // device in launches of up to cuda::kMaxRotationTerms, each reading the
  // hoisted digits once per row from L2 while it streams the keys.
  CudaCiphertext make_extended(std::size_t capacity_parts = 2) const;
  // Plaintexts are upload_blocks plaintexts; a null one multiplies by 1
  // (scale 1).
  void accumulate_rotations(const CudaCiphertext& a, const std::vector<int>& steps,
                            const std::vector<const CudaBlockPlain*>& extended_plains, CudaCiphertext& sum) const;
  // Several sums of the same rotations: sums[j] gets the terms times
  // plains[j] (one plaintext per step), each with the words of
  // accumulate_rotations(a, steps, plains[j], sums[j]). `a` is decomposed
  // once and each group of cuda::kMaxRotationSums sums takes one pass over
  // the keys, every term multiplied into all of the group's sums as it is
  // formed: a lazy BSGS's inner sums straight from its baby steps, which
  // are then never stored.
  void accumulate_rotations(const CudaCiphertext& a, const std::vector<int>& steps,
                            std::span<const std::vector<const CudaBlockPlain*>> plains,
                            std::span<CudaCiphertext> sums) const;
  // sum += the rotation by `step` of the 2-part extended sum `extended` (a
  // lazy BSGS giant step on its inner sum), the twin of
  // Evaluator::accumulate_extended_rotation with the same words: only its
  // c1 is brought down to Q (in the evaluator's workspace) and
  // key-switched; its c0 is permuted over QP as it is. Step 0 adds
  // `extended` itself. `sum` must not be `extended`.
  void accumulate_extended_rotation(const CudaCiphertext& extended, int step, CudaCiphertext& sum) const;
  // The same for several extended sums (a lazy BSGS pass's giant steps):
  // sum += the rotation by steps[i] of *extendeds[i] for every i, the words
  // of accumulate_extended_rotation for each in turn. Their c1 come down to
  // Q together, in batched ModDowns, then each is key-switched.
  void accumulate_extended_rotations(std::span<const CudaCiphertext* const> extendeds, const std::vector<int>& steps,
                                     CudaCiphertext& sum) const;
  // The terms themselves, outs[i] for steps[i], decomposed once (BSGS keeps
  // its baby steps so): outs are make_extended buffers.
  void rotate_many_extended(const CudaCiphertext& a, const std::vector<int>& steps,
                            std::span<CudaCiphertext> outs) const;
  // out = sum_t terms[t] (.) plains[t]: 2-part terms times 1-part
  // plaintexts of one kind (extended: BSGS's inner sums) and level; the
  // one-output case of multiply_plain_sums.
  void multiply_plain_sum(const std::vector<const CudaCiphertext*>& terms,
                          const std::vector<const CudaCiphertext*>& plains, CudaCiphertext& out) const;
  // outs[j] = sum_t terms[t] (.) plains[j][t] for every j, each with the
  // words of its own multiply_plain_sum. One pass over the terms serves up
  // to cuda::kMaxProductOutputs outputs (lazy BSGS: the baby steps are read
  // once for several giant steps, not once per giant step), in launches of
  // cuda::kMaxProductTerms terms. Outputs must alias no term or plaintext.
  void multiply_plain_sums(std::span<const CudaCiphertext* const> terms,
                           std::span<const std::vector<const CudaCiphertext*>> plains,
                           std::span<CudaCiphertext> outs) const;
  // The same with upload_blocks plaintexts and extended terms (the lazy
  // BSGS's diagonals): the same words from a fraction of the bytes.
  void multiply_plain_sums(std::span<const CudaCiphertext* const> terms,
                           std::span<const std::vector<const CudaBlockPlain*>> plains,
                           std::span<CudaCiphertext> outs) const;
  // `host` (from CkksEngine::encode_extended) on the device, one word a block
  // of the largest aligned blocks its rows are constant over
  // (evaluator/block_rows.h; a slot vector of period d: blocks of N/2d).
  // Allocates: a setup step. Alone (synchronises), or, for many, through
  // `staging` as upload's.
  CudaBlockPlain upload_blocks(const Plaintext& host) const;
  CudaBlockPlain upload_blocks(const Plaintext& host, cuda::StagedUploader& staging) const;
  // The extended sum / P, rounded, into `out` (rows level..L); the sum is kept.
  void mod_down(const CudaCiphertext& extended_sum, CudaCiphertext& out) const;
  // Evaluator::mod_down_rescale with the same words: the sum / (P q_level),
  // rounded, into `out` at level + 1; the sum is kept.
  void mod_down_rescale(const CudaCiphertext& extended_sum, CudaCiphertext& out) const;

  // m = c0 + c1 s (+ c2 s^2) into a one-part `plain` (enqueued), or
  // downloaded as a host Plaintext for engine.decode (synchronises).
  void decrypt(const CudaCiphertext& a, CudaCiphertext& plain) const;
  Plaintext decrypt(const CudaCiphertext& a) const;

 private:
  const cuda::LevelConstants& level_constants(int level) const;
  const cuda::DeviceSwitchKey& galois_key(std::uint64_t element) const;
  // A Q-rows operand (make_ciphertext's shape) of low..high parts at a
  // level of the preset, whose buffer holds them; an extended buffer, one of
  // another evaluator or a hand-set part count would be read past its end.
  void check_operand(const CudaCiphertext& a, std::size_t low, std::size_t high, const char* op) const;
  // A make_ciphertext buffer with room for `parts` parts at `level`.
  void check_output(const CudaCiphertext& out, const char* op, std::size_t parts, int level) const;
  void check_made_here(const CudaCiphertext& out, const char* op) const;
  // Checks that `parts` (rows level..) fit `device`, then gives it their
  // level, scale and part count (the words are the caller's to copy).
  void take_upload(std::span<const RnsPoly> parts, int level, double scale, CudaCiphertext& device) const;
  // An extended buffer (make_extended) with room for `parts` parts at level 0.
  void check_extended(const CudaCiphertext& x, const char* op, std::size_t parts = 1) const;
  // The operands and output of one plaintext-weighted sum; returns its scale.
  // Plain: CudaCiphertext or CudaBlockPlain.
  template <typename Plain>
  double check_plain_sum(std::span<const CudaCiphertext* const> terms, std::span<const Plain* const> plains,
                         const CudaCiphertext& out, const char* op) const;
  // multiply_plain_sums, its errors naming `op`.
  template <typename Plain>
  void plain_sums(std::span<const CudaCiphertext* const> terms, std::span<const std::vector<const Plain*>> plains,
                  std::span<CudaCiphertext> outs, const char* op) const;
  // Galois keys of `elements` (null for element 1), all looked up before any
  // work; decomposes `a` when one is needed (apply_galois and the extended
  // sums), one pass short (region set) where `fusion` (below) and extend
  // allow. Then the extended-sum kernel's launches.
  struct PreparedRotations {
    std::vector<const cuda::DeviceSwitchKey*> keys;
    std::optional<ntt::gpu::ForwardRegion> region;
  };
  // Which rotations leave the ModUp's region to their fused key products:
  // none, a single one, or also 2 to kMaxFusedTerms rotations all by keys
  // (apply_galois: launch_region_key_products).
  enum class RegionFusion { none, single, single_or_hoisted };
  PreparedRotations prepare_rotations(const CudaCiphertext& a, const std::vector<std::uint64_t>& elements,
                                      RegionFusion fusion) const;
  // The scale of accumulate_rotations' terms, after checking its operands.
  double check_rotation_sum(const CudaCiphertext& a, const std::vector<int>& steps,
                            const std::vector<const CudaBlockPlain*>& plains, const CudaCiphertext& sum,
                            const char* op) const;
  // The terms of `prepared` (its rotations' keys) times `plains` into `sum`
  // (already shaped), the input's parts as `args` gives them.
  void add_terms(const PreparedRotations& prepared, const cuda::ExtendedSumArgs& args,
                 const std::vector<const CudaBlockPlain*>& plains, bool accumulate, CudaCiphertext& sum) const;
  void launch_terms(cuda::ExtendedSumArgs args, const std::vector<const cuda::DeviceSwitchKey*>& keys,
                    const std::vector<const CudaBlockPlain*>& plains, bool accumulate, CudaCiphertext& sum) const;
  // The kernels' view of `a`'s hoisted decomposition at its level, of part
  // `decomposed_part` (1 for rotations, 2 for relinearization).
  cuda::ExtendedSumArgs extended_sum_args(const CudaCiphertext& a, std::size_t decomposed_part = 1) const;
  // The same for a level's parts given by pointer (Q rows each).
  cuda::ExtendedSumArgs extended_sum_args(int level, const std::uint64_t* c0, const std::uint64_t* c1,
                                          const std::uint64_t* decomposed) const;
  // out = a op b over a's parts (b: b_parts parts, as launch_elementwise
  // takes them), out's level a's and its scale `scale`.
  void elementwise(cuda::Elementwise op, const CudaCiphertext& a, const std::uint64_t* b, std::size_t b_parts,
                   double scale, CudaCiphertext& out) const;
  // One polynomial of a ModDown: its Q rows at the level, where the result
  // goes, and an optional addend (Q rows).
  struct ModDownPart {
    const std::uint64_t* x;
    std::uint64_t* out;
    const std::uint64_t* addend;
    bool x_scratch = false;  // x is a workspace this ModDown reads last (ScaleDownItem)
  };
  // ModDown of up to 2 x kHoistedRotationsPerLaunch parts whose P rows lie
  // back to back in `p_rows` (part i's at i x P rows; transformed in place).
  void mod_down_parts(int level, std::span<const ModDownPart> parts, std::uint64_t* p_rows) const;
  // mod_down_parts in two halves. begin_mod_down enqueues on `s` what needs
  // only the P rows: their inverse (in place, or into p_rows from
  // `p_source`, part i's P rows at i x p_source_words), the conversion to
  // the Q rows and the forward transform of the converted rows but for the
  // last pass, whose region it returns (nullopt: transformed fully).
  // end_mod_down runs the finish of each part on stream().
  std::optional<ntt::gpu::ForwardRegion> begin_mod_down(int level, std::size_t count, std::uint64_t* p_rows,
                                                        cudaStream_t s, const std::uint64_t* p_source = nullptr,
                                                        std::size_t p_source_words = 0) const;
  void end_mod_down(const std::optional<ntt::gpu::ForwardRegion>& region, int level,
                    std::span<const ModDownPart> parts) const;
  // One key switch whose ModUp left its last pass to the fused key product
  // (`region`), with out.p_block set, then the ModDown of `parts` (the
  // term's two parts). While stream() is being captured, the P rows'
  // product and begin_mod_down run on the side stream beside the Q rows'
  // product, joined back before the finish; eagerly, all on stream().
  void fused_key_switch(const ntt::gpu::ForwardRegion& region, const cuda::RotationTerm& term,
                        const cuda::ExtendedSumArgs& args, const cuda::TermOutput& out,
                        std::span<const ModDownPart> parts) const;
  // `batch` blocks of `rows` to coefficient form in `data` (rows.count rows
  // a block, back to back), read from `source`, whose blocks start
  // source_words apart (a strip of rows of each ciphertext part): out of
  // place where the plan's inverse allows it, else copied in first.
  void inverse_into(const std::uint64_t* source, std::size_t source_words, std::uint64_t* data, ntt::RowRange rows,
                    std::size_t batch, cudaStream_t s) const;
  // RnsScaleDown's last steps (ModDown and rescale) in two halves:
  // forward_for_finish takes `converted` (count blocks of the kept rows,
  // coefficient form) to NTT form on `s`, but for the last pass where the
  // plan ends in the shared-memory region, and the global pass before it
  // where the plan would run the two in one launch (returned);
  // finish_scale_down then runs the finish of each item on stream(), fused
  // with those passes.
  std::optional<ntt::gpu::ForwardRegion> forward_for_finish(std::uint64_t* converted, ntt::RowRange kept,
                                                            std::size_t count, cudaStream_t s) const;
  void finish_scale_down(const std::optional<ntt::gpu::ForwardRegion>& region,
                         const cuda::DeviceScaleDown& scale_down, ntt::RowRange kept,
                         const cuda::ScaleDownItem* items, std::size_t count) const;
  // ModUp of `input` (Q rows at `level`, NTT form) into extended_: every
  // digit over the level's QP rows. A digit's own rows are the input's
  // rows, so the forward passes skip them. With `leave_region`, when the
  // plan's forward transform ends in the shared-memory region and the digit
  // count takes the fused path (kMinFusedDigits..kMaxFusedDigits), that last
  // pass is left to the caller's launch_region_key_product (which reads the
  // own rows from `input`) and its arguments are returned; otherwise the own
  // rows are copied in, the decomposition is complete and nullopt is
  // returned.
  std::optional<ntt::gpu::ForwardRegion> extend(const std::uint64_t* input, int level,
                                                bool leave_region = false) const;
  // extend's conversion and forward, `coefficients` holding the input's
  // rows in coefficient form already (a scratch copy: the conversion drops
  // its lines from L2).
  std::optional<ntt::gpu::ForwardRegion> extend_inverted(const std::uint64_t* input,
                                                         const std::uint64_t* coefficients, int level,
                                                         bool leave_region) const;
  // Rotations keys[start, start + batch) of a's hoisted decomposition, each
  // into its own extended output (launch_rotation_outputs; outs_p may be null).
  void launch_rotations(const CudaCiphertext& a, const std::vector<const cuda::DeviceSwitchKey*>& keys,
                        std::size_t start, std::size_t batch, std::uint64_t* const* outs_b,
                        std::uint64_t* const* outs_a, std::uint64_t* const* outs_p) const;
  void apply_galois(const CudaCiphertext& a, const std::vector<std::uint64_t>& elements,
                    std::span<CudaCiphertext> outs, const char* op) const;

  const CkksEngine& engine_;
  const ntt::NttPlan& plan_;
  int device_ = 0;
  std::size_t n_ = 0, q_rows_ = 0, p_rows_ = 0, qp_rows_ = 0;
  int log_n_ = 0;
  cuda::Stream stream_;
  // fused_key_switch's second stream in a capture, forked from and joined
  // back into stream_ within the operation.
  cuda::Stream side_stream_;
  cuda::OrderEvent fork_, join_;
  KeySwitchScheduleCache schedules_;
  cuda::DeviceBuffer<Modulus<std::uint64_t>> moduli_;
  cuda::DeviceBuffer<double> q_inverse_;  // fl(1 / q) by QP row id: the tensor's rows below 2^42
  std::shared_ptr<const cuda::DeviceKeys> keys_;
  std::vector<cuda::LevelConstants> levels_;
  cuda::DeviceBuffer<std::uint64_t> p_mod_q_, p_mod_q_shoup_;  // [P]_(q) by Q row id
  // 1 and its Shoup companions by QP row id: in place of [P]_(q), a term's
  // c0 over every row added as it is (accumulate_extended_rotation).
  cuda::DeviceBuffer<std::uint64_t> one_mod_qp_, one_mod_qp_shoup_;
  // Workspaces sized for level 0.
  mutable cuda::DeviceBuffer<std::uint64_t> coefficients_, extended_, accumulators_, converted_, dropped_,
      rotations_;
};

}  // namespace fhe
