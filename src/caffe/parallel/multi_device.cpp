// Several devices in one process: a thread per rank, a ThreadGroup for
// the host collectives, NCCL for GPU sums.
#include "caffe/parallel/multi_device.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "caffe/common.hpp"
#include "caffe/parallel/distributed.hpp"
#include "caffe/parallel/nccl_communicator.hpp"
#include "caffe/parallel/thread_communicator.hpp"
#include "caffe/util/parallel.hpp"

namespace caffe {

void RunRanksInThreads(int ranks,
                       const std::function<void(int, ThreadCommunicator*)>& body) {
  if (ranks < 1) throw Error("a job needs at least one rank");
  ThreadGroup group(ranks);
  const Caffe::Brew mode = Caffe::mode();
  const int device = Caffe::device();
  const int omp_threads = std::max(1, ParallelThreads() / ranks);
  std::mutex mutex;
  std::string first_failure;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        ThreadCommunicator host(&group, r);
        Caffe::set_solver_count(ranks);
        Caffe::set_solver_rank(r);
        if (mode == Caffe::GPU) {
          Caffe::SetDevice(device);
          Caffe::set_mode(Caffe::GPU);
        }
        SetParallelThreads(omp_threads);
        ThreadCommunicatorScope scope(&host);
        body(r, &host);
      } catch (const std::exception& e) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (first_failure.empty())
            first_failure = "rank " + std::to_string(r) + ": " + e.what();
        }
        group.Abort("rank " + std::to_string(r) + " failed: " + e.what());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (!first_failure.empty()) throw Error(first_failure);
}

std::unique_ptr<Communicator> JoinNccl(Communicator* host,
                                       std::function<bool()> peer_failed) {
  std::string uid = host->rank() == 0 ? NewNcclUid() : std::string();
  uint64_t bytes = uid.size();
  host->Broadcast(&bytes, sizeof(bytes), 0, "the size of the NCCL id");
  uid.resize(bytes);
  host->Broadcast(&uid[0], bytes, 0, "the broadcast of the NCCL id");
  return MakeNcclCommunicator(uid, host->rank(), host->size(),
                              std::move(peer_failed));
}

void RunOnGpus(const std::vector<int>& gpus,
               const std::function<void(int)>& body) {
  if (!NcclSupported())
    throw Error("training on " + std::to_string(gpus.size()) +
                " GPUs in one process needs NCCL, which this LeanCaffe "
                "build lacks; give one GPU id");
  std::string why;
  const int count = Caffe::GpuCount(&why);
  if (count == 0) throw Error("no GPU: " + why);
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i] < 0 || gpus[i] >= count)
      throw Error("GPU " + std::to_string(gpus[i]) +
                  " is not a GPU of this machine (0 to " +
                  std::to_string(count - 1) + ")");
    for (size_t j = 0; j < i; ++j)
      if (gpus[j] == gpus[i])
        throw Error("GPU " + std::to_string(gpus[i]) +
                    " is listed twice: NCCL runs one rank per GPU");
  }
  const int ranks = static_cast<int>(gpus.size());
  RunRanksInThreads(ranks, [&](int rank, ThreadCommunicator* host) {
    Caffe::SetDevice(gpus[rank]);
    Caffe::set_mode(Caffe::GPU);
    std::unique_ptr<Communicator> nccl =
        JoinNccl(host, [host] { return host->group_aborted(); });
    ThreadCommunicatorScope scope(nccl.get());
    body(rank);
  });
}

}  // namespace caffe
