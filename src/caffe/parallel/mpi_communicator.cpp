// The Communicator over MPI (Open MPI from Debian): launcher, transport
// and job control come from MPI; nothing here moves bytes itself.
#ifdef USE_MPI
// The C API only: Open MPI's deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>

#include "caffe/common.hpp"
#include "caffe/parallel/distributed.hpp"

namespace caffe {

namespace {

MPI_Datatype MpiType(Communicator::Type type) {
  switch (type) {
    case Communicator::FLOAT:
      return MPI_FLOAT;
    case Communicator::DOUBLE:
      return MPI_DOUBLE;
    case Communicator::INT64:
      return MPI_INT64_T;
  }
  return MPI_BYTE;
}

size_t TypeBytes(Communicator::Type type) {
  return type == Communicator::FLOAT ? 4 : 8;
}

void Check(int code, const char* call, const std::string& what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(call) + " failed during " + what + ": " +
              std::string(text, length));
}

void FinalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// MPI counts are ints: longer buffers go in pieces.
const size_t kMaxCount = INT_MAX;

// Calls piece(offset, n) for consecutive pieces of at most kMaxCount.
template <typename Piece>
void InPieces(size_t count, Piece piece) {
  for (size_t done = 0; done < count;) {
    const size_t n = std::min(kMaxCount, count - done);
    piece(done, static_cast<int>(n));
    done += n;
  }
}

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes and become caffe::Error with context.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void AllreduceSum(void* data, size_t count, Type type,
                    const std::string& what) override {
    CollectiveWatch watch(what);
    char* p = static_cast<char*>(data);
    InPieces(count, [&](size_t offset, int n) {
      Check(MPI_Allreduce(MPI_IN_PLACE, p + offset * TypeBytes(type), n,
                          MpiType(type), MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce", what);
    });
  }

  int StartAllreduceSum(void* data, size_t count, Type type,
                        const std::string& what) override {
    CAFFE_INTERNAL_CHECK(count <= kMaxCount);
    MPI_Request request;
    Check(MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count),
                         MpiType(type), MPI_SUM, MPI_COMM_WORLD, &request),
          "MPI_Iallreduce", what);
    const int handle = next_handle_++;
    pending_[handle] = Pending{request, what};
    return handle;
  }

  void Progress() override {
    for (auto& entry : pending_) {
      if (entry.second.request == MPI_REQUEST_NULL) continue;
      int flag = 0;
      Check(MPI_Test(&entry.second.request, &flag, MPI_STATUS_IGNORE),
            "MPI_Test", entry.second.what);
    }
  }

  void Wait(int handle) override {
    auto it = pending_.find(handle);
    CAFFE_INTERNAL_CHECK(it != pending_.end());
    {
      CollectiveWatch watch(it->second.what);
      Check(MPI_Wait(&it->second.request, MPI_STATUS_IGNORE), "MPI_Wait",
            it->second.what);
    }
    pending_.erase(it);
  }

  void Broadcast(void* data, size_t bytes, int root,
                 const std::string& what) override {
    CollectiveWatch watch(what);
    char* p = static_cast<char*>(data);
    InPieces(bytes, [&](size_t offset, int n) {
      Check(MPI_Bcast(p + offset, n, MPI_BYTE, root, MPI_COMM_WORLD),
            "MPI_Bcast", what);
    });
  }

  std::vector<std::vector<uint64_t> > Allgather(
      const std::vector<uint64_t>& mine, const std::string& what) override {
    CollectiveWatch watch(what);
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size_), offsets(size_);
    Check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT,
                        MPI_COMM_WORLD),
          "MPI_Allgather", what);
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::vector<uint64_t> all(std::max(total, 1));
    Check(MPI_Allgatherv(mine.data(), length, MPI_UINT64_T, all.data(),
                         lengths.data(), offsets.data(), MPI_UINT64_T,
                         MPI_COMM_WORLD),
          "MPI_Allgatherv", what);
    std::vector<std::vector<uint64_t> > out(size_);
    for (int r = 0; r < size_; ++r)
      out[r].assign(all.begin() + offsets[r],
                    all.begin() + offsets[r] + lengths[r]);
    return out;
  }

  void Abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::exit(exit_code);
  }

 private:
  struct Pending {
    MPI_Request request;
    std::string what;
  };
  int rank_ = 0, size_ = 1;
  int next_handle_ = 0;
  std::map<int, Pending> pending_;
};

}  // namespace

Communicator* StartMpiCommunicator() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    // Starting MPI waits for every rank to arrive, so a peer stopped before
    // it gets here would hang this rank without the watch.
    int code;
    {
      CollectiveWatch watch("MPI_Init (the start-up of all ranks)");
      code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    if (code != MPI_SUCCESS)
      throw Error("MPI_Init_thread failed: this process was launched by "
                  "mpirun but MPI could not start");
    std::atexit(FinalizeAtExit);
  }
  static MpiCommunicator* communicator = new MpiCommunicator();
  return communicator;
}

}  // namespace caffe
#endif  // USE_MPI
