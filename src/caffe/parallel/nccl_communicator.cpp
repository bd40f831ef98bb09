// The Communicator over NCCL: collectives on the communicator's own
// stream, ordered after the default stream's work with events; host
// buffers staged through one device buffer.  NCCL moves every byte.
#include "caffe/parallel/nccl_communicator.hpp"

#include "caffe/common.hpp"

#ifdef USE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "caffe/parallel/distributed.hpp"
#include "caffe/util/cuda.hpp"

namespace caffe {

namespace {

void CheckNccl(ncclResult_t result, const char* call, const std::string& what) {
  if (result == ncclSuccess) return;
  std::ostringstream message;
  message << call << " failed during " << what << ": "
          << ncclGetErrorString(result);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') message << " (" << last << ")";
  throw Error(message.str());
}

ncclDataType_t NcclType(Communicator::Type type) {
  switch (type) {
    case Communicator::FLOAT:
      return ncclFloat32;
    case Communicator::DOUBLE:
      return ncclFloat64;
    case Communicator::INT64:
      return ncclInt64;
  }
  return ncclChar;
}

size_t TypeBytes(Communicator::Type type) {
  return type == Communicator::FLOAT ? 4 : 8;
}

bool IsDevicePointer(const void* p) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // clear it: an unknown pointer is a host pointer
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice ||
         attributes.type == cudaMemoryTypeManaged;
}

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(const std::string& uid, int rank, int size,
                   std::function<bool()> peer_failed)
      : rank_(rank), size_(size), peer_failed_(std::move(peer_failed)) {
    if (uid.size() != sizeof(ncclUniqueId))
      throw Error("an NCCL unique id has " +
                  std::to_string(sizeof(ncclUniqueId)) + " bytes, not " +
                  std::to_string(uid.size()) +
                  " (make it with caffe.NCCL.new_uid())");
    if (size < 1 || rank < 0 || rank >= size)
      throw Error("NCCL rank " + std::to_string(rank) + " of " +
                  std::to_string(size) + " ranks is not a rank of the job");
    device_ = CurrentDevice("NCCL");
    ncclUniqueId id;
    std::memcpy(&id, uid.data(), sizeof(id));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&queued_, cudaEventDisableTiming));
    CheckNccl(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank",
              "joining the NCCL communicator as rank " +
                  std::to_string(rank) + " of " + std::to_string(size) +
                  " on GPU " + std::to_string(device_));
  }

  ~NcclCommunicator() override {
    for (auto& entry : pending_) cudaEventDestroy(entry.second.done);
    if (comm_ != nullptr) ncclCommDestroy(comm_);
    if (scratch_ != nullptr) cudaFree(scratch_);
    cudaEventDestroy(queued_);
    cudaStreamDestroy(stream_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool sums_device_memory() const override { return true; }

  void AllreduceSum(void* data, size_t count, Type type,
                    const std::string& what) override {
    const size_t bytes = count * TypeBytes(type);
    void* on_device = StageIn(data, bytes);
    CheckNccl(ncclAllReduce(on_device, on_device, count, NcclType(type),
                            ncclSum, comm_, stream_),
              "ncclAllReduce", what);
    Finish(what);  // before any copy back that would block on a dead peer
    StageOut(on_device, data, bytes);
  }

  int StartAllreduceSum(void* data, size_t count, Type type,
                        const std::string& what) override {
    if (!IsDevicePointer(data)) {
      AllreduceSum(data, count, type, what);
      return Record(what);
    }
    AfterDefaultStream();
    CheckNccl(ncclAllReduce(data, data, count, NcclType(type), ncclSum,
                            comm_, stream_),
              "ncclAllReduce", what);
    return Record(what);
  }

  void Progress() override {}

  void Wait(int handle) override {
    auto it = pending_.find(handle);
    CAFFE_INTERNAL_CHECK(it != pending_.end());
    cudaEvent_t done = it->second.done;
    PollUntil([&] { return cudaEventQuery(done); }, it->second.what);
    CUDA_CHECK(cudaStreamWaitEvent(0, done, 0));
    cudaEventDestroy(done);  // the wait above is already queued
    pending_.erase(it);
  }

  void Broadcast(void* data, size_t bytes, int root,
                 const std::string& what) override {
    void* on_device = StageIn(data, bytes);
    CheckNccl(ncclBroadcast(on_device, on_device, bytes, ncclChar, root,
                            comm_, stream_),
              "ncclBroadcast", what);
    Finish(what);
    StageOut(on_device, data, bytes);
  }

  std::vector<std::vector<uint64_t> > Allgather(
      const std::vector<uint64_t>& mine, const std::string& what) override {
    // Lengths first, then every rank's values padded to the longest.
    std::vector<uint64_t> lengths(size_);
    lengths[rank_] = mine.size();
    GatherOne(lengths.data(), 1, what);
    const uint64_t longest =
        std::max<uint64_t>(1, *std::max_element(lengths.begin(), lengths.end()));
    std::vector<uint64_t> all(longest * size_, 0);
    std::copy(mine.begin(), mine.end(), all.begin() + longest * rank_);
    GatherOne(all.data(), longest, what);
    std::vector<std::vector<uint64_t> > out(size_);
    for (int r = 0; r < size_; ++r)
      out[r].assign(all.begin() + longest * r,
                    all.begin() + longest * r + lengths[r]);
    return out;
  }

  [[noreturn]] void Abort(int exit_code) override {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
    throw Error("NCCL rank " + std::to_string(rank_) + " aborted the job " +
                "(status " + std::to_string(exit_code) + ")");
  }

 private:
  // Orders the communicator's stream after the default stream's work.
  void AfterDefaultStream() {
    CUDA_CHECK(cudaEventRecord(queued_, 0));
    CUDA_CHECK(cudaStreamWaitEvent(stream_, queued_, 0));
  }

  // The device address to reduce in place: `data` itself, or the scratch
  // buffer holding a copy of the host bytes.
  void* StageIn(void* data, size_t bytes) {
    AfterDefaultStream();
    if (IsDevicePointer(data)) return data;
    if (scratch_bytes_ < bytes) {
      if (scratch_ != nullptr) CUDA_CHECK(cudaFree(scratch_));
      scratch_ = nullptr;
      CUDA_CHECK(cudaMalloc(&scratch_, bytes));
      scratch_bytes_ = bytes;
    }
    CUDA_CHECK(cudaMemcpyAsync(scratch_, data, bytes, cudaMemcpyHostToDevice,
                               stream_));
    return scratch_;
  }

  // After Finish: the stream is idle, so the copy cannot wait on a peer.
  void StageOut(void* on_device, void* data, size_t bytes) {
    if (on_device == data) return;
    CUDA_CHECK(cudaMemcpyAsync(data, on_device, bytes, cudaMemcpyDeviceToHost,
                               stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Blocks until the stream is idle; later default-stream work follows.
  void Finish(const std::string& what) {
    PollUntil([&] { return cudaStreamQuery(stream_); }, what);
  }

  // `values` holds size_ slots of `n` values; fills every other rank's.
  void GatherOne(uint64_t* values, size_t n, const std::string& what) {
    const size_t bytes = n * size_ * sizeof(uint64_t);
    void* on_device = StageIn(values, bytes);
    char* base = static_cast<char*>(on_device);
    CheckNccl(ncclAllGather(base + rank_ * n * sizeof(uint64_t), base, n,
                            ncclUint64, comm_, stream_),
              "ncclAllGather", what);
    Finish(what);
    StageOut(on_device, values, bytes);
  }

  int Record(const std::string& what) {
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(done, stream_));
    pending_[next_handle_] = Pending{done, what};
    return next_handle_++;
  }

  // Polls `query` until it says done; a failure NCCL reports, or the
  // timeout, aborts the communicator with an Error naming `what`.
  template <typename Query>
  void PollUntil(Query query, const std::string& what) {
    const double timeout = dist_timeout();
    const auto start = std::chrono::steady_clock::now();
    for (int spins = 0;; ++spins) {
      const cudaError_t state = query();
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady)
        throw Error(CudaErrorMessage(what.c_str(), state));
      ncclResult_t async = ncclSuccess;
      CheckNccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError",
                what);
      if (async != ncclSuccess && async != ncclInProgress) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        CheckNccl(async, "NCCL", what + " (a peer stalled or died)");
      }
      const double waited = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
      if (peer_failed_ && peer_failed_()) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        throw Error(what + " was abandoned: another rank of the job failed");
      }
      if (timeout > 0 && waited > timeout) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        std::ostringstream message;
        message << what << " did not finish within " << timeout
                << " s (--dist_timeout): a peer stalled or died";
        throw Error(message.str());
      }
      if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  int rank_, size_;
  std::function<bool()> peer_failed_;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t queued_ = nullptr;
  void* scratch_ = nullptr;
  size_t scratch_bytes_ = 0;
  struct Pending {
    cudaEvent_t done;
    std::string what;
  };
  std::map<int, Pending> pending_;  // sums started, not yet waited for
  int next_handle_ = 0;
};

}  // namespace

bool NcclSupported() { return true; }

std::string NcclVersion() {
  int version = 0;
  CheckNccl(ncclGetVersion(&version), "ncclGetVersion", "asking its version");
  // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
  return std::to_string(version / 10000) + "." +
         std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

std::string NewNcclUid() {
  ncclUniqueId id;
  CheckNccl(ncclGetUniqueId(&id), "ncclGetUniqueId",
            "making an NCCL unique id");
  return std::string(id.internal, sizeof(id.internal));
}

std::unique_ptr<Communicator> MakeNcclCommunicator(
    const std::string& uid, int rank, int size,
    std::function<bool()> peer_failed) {
  return std::unique_ptr<Communicator>(
      new NcclCommunicator(uid, rank, size, std::move(peer_failed)));
}

}  // namespace caffe

#else  // !USE_NCCL

namespace caffe {

namespace {
[[noreturn]] void NoNccl() {
  throw Error("this LeanCaffe build has no NCCL (build with the CUDA toolkit "
              "and libnccl): data-parallel training on GPUs needs it");
}
}  // namespace

bool NcclSupported() { return false; }
std::string NcclVersion() { NoNccl(); }
std::string NewNcclUid() { NoNccl(); }
std::unique_ptr<Communicator> MakeNcclCommunicator(const std::string&, int,
                                                   int, std::function<bool()>) {
  NoNccl();
}

}  // namespace caffe

#endif  // USE_NCCL
