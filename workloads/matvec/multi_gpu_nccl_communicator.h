// One rank's NCCL communicator for the multi-GPU matvec, created
// non-blocking (config.blocking = 0) so that no NCCL call can hang the
// process: every wait polls the communicator's asynchronous error, a check
// of the other ranks (rank 0 watches its child processes) and a deadline,
// and on any failure aborts the communicator (ncclCommAbort, which also
// stops kernels waiting for a dead peer) before throwing DeviceError.
// Built only with NCCL.
#pragma once

#include <functional>
#include <string>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "workloads/matvec/multi_gpu_message.h"
#include "workloads/matvec/multi_gpu_processes.h"

namespace fhe::workloads {

// A fresh ncclUniqueId (rank 0 only; it opens NCCL's bootstrap socket).
NcclIdBytes make_nccl_unique_id();

class NcclCommunicator {
 public:
  // Throws when a peer is known to have failed (rank 0: RankProcesses::check).
  using PeerCheck = std::function<void()>;

  // Joins the communicator of `ranks` ranks as `rank` on cuda:`device`;
  // returns once every rank has joined.
  NcclCommunicator(const NcclIdBytes& id, int rank, int ranks, int device, RankClock::time_point deadline,
                   PeerCheck peers = {});
  // Aborts the communicator unless close() completed.
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  ncclComm_t get() const { return comm_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }

  // Checks the result of an NCCL call inside a group (queued, not issued).
  void queued(ncclResult_t result, const char* what);
  // Checks the result of an NCCL call or ncclGroupEnd and waits until NCCL
  // has issued the work to its stream (non-blocking calls may return
  // ncclInProgress first).
  void issued(ncclResult_t result, const char* what);
  // Waits until `stream` has finished, polling (no blocking synchronise).
  void wait(cudaStream_t stream, const char* what);
  // Finalises (flushes every operation, waits for global quiescence) and
  // destroys the communicator.
  void close();
  // Aborts now (idempotent): stops NCCL kernels still waiting for peers, so
  // that buffers they use can be freed while an error unwinds.
  void abort();

 private:
  void settle(const char* what);
  // Deadline and peers; aborts and throws when either fails.
  void check_progress(const char* what);
  [[noreturn]] void fail(const std::string& message);

  ncclComm_t comm_ = nullptr;
  int rank_ = 0, ranks_ = 1, device_ = 0;
  RankClock::time_point deadline_;
  PeerCheck peers_;
};

}  // namespace fhe::workloads
