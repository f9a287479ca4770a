// The polled, abortable NCCL communicator.
#include "workloads/matvec/multi_gpu_nccl_communicator.h"

#include <cstring>
#include <thread>

#include "fhe/core/error.h"
#include "fhe/cuda/stream.h"

namespace fhe::workloads {
namespace {

static_assert(sizeof(ncclUniqueId) == std::tuple_size_v<NcclIdBytes>, "NcclIdBytes must hold an ncclUniqueId");

// Short enough not to add latency to a reduction of ~0.1 ms that is timed
// with CUDA events anyway; long enough not to burn a core.
constexpr auto kPollInterval = std::chrono::microseconds(50);

std::string nccl_text(ncclResult_t result) { return ncclGetErrorString(result); }

}  // namespace

NcclIdBytes make_nccl_unique_id() {
  ncclUniqueId id;
  const ncclResult_t result = ncclGetUniqueId(&id);
  if (result != ncclSuccess) throw DeviceError("ncclGetUniqueId failed: " + nccl_text(result));
  NcclIdBytes bytes;
  std::memcpy(bytes.data(), &id, sizeof id);
  return bytes;
}

NcclCommunicator::NcclCommunicator(const NcclIdBytes& id, int rank, int ranks, int device,
                                   RankClock::time_point deadline, PeerCheck peers)
    : rank_(rank), ranks_(ranks), device_(device), deadline_(deadline), peers_(std::move(peers)) {
  cuda::DeviceGuard guard(device_);
  ncclUniqueId unique;
  std::memcpy(&unique, id.data(), sizeof unique);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  issued(ncclCommInitRankConfig(&comm_, ranks_, unique, rank_, &config), "joining the communicator");
}

NcclCommunicator::~NcclCommunicator() { abort(); }

void NcclCommunicator::abort() {
  if (comm_ == nullptr) return;
  // On the communicator's device, without throwing (destructors call this).
  int previous = device_;
  cudaGetDevice(&previous);
  cudaSetDevice(device_);
  ncclCommAbort(comm_);
  comm_ = nullptr;
  cudaSetDevice(previous);
}

void NcclCommunicator::queued(ncclResult_t result, const char* what) {
  if (result != ncclSuccess && result != ncclInProgress) fail(std::string(what) + ": " + nccl_text(result));
}

void NcclCommunicator::issued(ncclResult_t result, const char* what) {
  queued(result, what);
  settle(what);
}

void NcclCommunicator::settle(const char* what) {
  for (;;) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t query = ncclCommGetAsyncError(comm_, &state);
    if (query != ncclSuccess) fail(std::string(what) + ": ncclCommGetAsyncError: " + nccl_text(query));
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) fail(std::string(what) + ": " + nccl_text(state));
    check_progress(what);
    std::this_thread::sleep_for(kPollInterval);
  }
}

void NcclCommunicator::wait(cudaStream_t stream, const char* what) {
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) {
      fail(std::string(what) + ": CUDA error " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
    // A remote failure surfaces here while the kernels still wait.
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state != ncclSuccess && state != ncclInProgress) {
      fail(std::string(what) + ": " + nccl_text(state));
    }
    check_progress(what);
    std::this_thread::sleep_for(kPollInterval);
  }
}

void NcclCommunicator::close() {
  issued(ncclCommFinalize(comm_), "finalising the communicator");
  const ncclResult_t result = ncclCommDestroy(comm_);
  comm_ = nullptr;
  if (result != ncclSuccess) fail("destroying the communicator: " + nccl_text(result));
}

void NcclCommunicator::check_progress(const char* what) {
  if (peers_) {
    try {
      peers_();
    } catch (const std::exception& error) {
      fail(std::string(what) + " stopped: " + error.what());
    }
  }
  if (RankClock::now() >= deadline_) fail(std::string(what) + ": timed out (the run's time limit passed)");
}

void NcclCommunicator::fail(const std::string& message) {
  std::string detail;
  if (comm_ != nullptr) {
    const char* last = ncclGetLastError(comm_);
    if (last != nullptr && *last != '\0') detail = " [" + std::string(last) + "]";
    abort();
  }
  throw DeviceError("NCCL rank " + std::to_string(rank_) + " of " + std::to_string(ranks_) + " on cuda:" +
                    std::to_string(device_) + ", " + message + detail);
}

}  // namespace fhe::workloads
