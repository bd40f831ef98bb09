// nccl_communicator.hpp: the Communicator over NCCL, one rank per GPU,
// for data-parallel training on GPUs (several GPUs of one process, MPI
// ranks with a GPU each, pycaffe's caffe.NCCL).
//
// Contract:
//  * NcclSupported() says whether this build has NCCL (USE_NCCL, on when
//    the CUDA toolkit and libnccl are found).  Without it every function
//    below raises a caffe::Error that says so.
//  * NewNcclUid() is a fresh ncclUniqueId as its 128 raw bytes; one rank
//    makes it and hands it to the others (a thread broadcast, MPI_Bcast,
//    or Python multiprocessing), so NCCL's bootstrap is NCCL's own.
//  * MakeNcclCommunicator(uid, rank, size) joins the communicator of
//    `size` ranks on the calling thread's current GPU (Caffe::SetDevice
//    first); every rank calls it, each on its own thread or process.  Two
//    ranks on one GPU are refused by NCCL ("Duplicate GPU detected").
//  * The communicator sums device memory (sums_device_memory()): device
//    pointers go to NCCL directly on the communicator's own non-blocking
//    stream, after the work already queued on the default stream; host
//    pointers are staged through a device buffer.  Wait(handle) makes the
//    default stream wait for that sum (the host does not block).  Blocking
//    calls return when their result is in place.
//  * A collective that does not finish within dist_timeout() seconds, or
//    that NCCL reports as failed (a peer died), aborts the NCCL
//    communicator and raises an Error naming the collective.
#ifndef CAFFE_PARALLEL_NCCL_COMMUNICATOR_HPP_
#define CAFFE_PARALLEL_NCCL_COMMUNICATOR_HPP_

#include <functional>
#include <memory>
#include <string>

#include "caffe/parallel/communicator.hpp"

namespace caffe {

bool NcclSupported();
// NCCL's version as "2.28.9" (the library's answer; no GPU needed).
std::string NcclVersion();
std::string NewNcclUid();
// `peer_failed`, when given, is polled while a collective waits: once it
// is true the communicator aborts and the collective raises an Error (the
// in-process launcher's way to stop ranks whose peer thread failed).
std::unique_ptr<Communicator> MakeNcclCommunicator(
    const std::string& uid, int rank, int size,
    std::function<bool()> peer_failed = nullptr);

}  // namespace caffe

#endif  // CAFFE_PARALLEL_NCCL_COMMUNICATOR_HPP_
