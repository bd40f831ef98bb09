// multi_device.hpp: one process training one model on several devices,
// as Caffe 1.0's `caffe train --gpu=0,1`: a thread per device, each a rank
// of a data-parallel job with a solver of its own (DataParallel does the
// rest, as it does for MPI ranks).
//
// Contract:
//  * RunRanksInThreads(n, body) runs body(rank, host) on n new threads and
//    returns when all have ended.  On each thread Caffe's per-thread state
//    says solver_count n and solver_rank r, and DistributedCommunicator()
//    is `host`, that thread's rank of one ThreadGroup (collectives among
//    the threads), unless the body installs another with
//    SetThreadCommunicator.  Each thread starts with the caller's mode,
//    device and OpenMP thread count divided among the ranks (at least 1).
//  * If a body throws, the group is aborted, so every other rank's current
//    or next collective throws too (nothing waits forever); all threads
//    are joined and the first failure is rethrown on the caller as a
//    caffe::Error "rank r: <what>".
//  * RunOnGpus(gpus, body) does the same with rank r on GPU gpus[r] in GPU
//    mode and an NCCL communicator as the thread's communicator (rank 0
//    makes the NCCL id and hands it over through the thread group), so
//    gradients are summed on the GPUs.  Without NCCL or GPUs it raises an
//    Error saying which is missing, before any thread starts.
#ifndef CAFFE_PARALLEL_MULTI_DEVICE_HPP_
#define CAFFE_PARALLEL_MULTI_DEVICE_HPP_

#include <functional>
#include <memory>
#include <vector>

#include "caffe/parallel/thread_communicator.hpp"

namespace caffe {

void RunRanksInThreads(
    int ranks, const std::function<void(int, ThreadCommunicator*)>& body);

// Every rank of `host` calls it on its own GPU: rank 0 makes an NCCL id,
// `host` hands it to the others, and all join one NCCL communicator of
// host->size() ranks (MPI ranks with a GPU each use this too).
std::unique_ptr<Communicator> JoinNccl(
    Communicator* host, std::function<bool()> peer_failed = nullptr);

void RunOnGpus(const std::vector<int>& gpus,
               const std::function<void(int)>& body);

}  // namespace caffe

#endif  // CAFFE_PARALLEL_MULTI_DEVICE_HPP_
