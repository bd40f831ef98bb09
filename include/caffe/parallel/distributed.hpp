// distributed.hpp: the process's place in a data-parallel job.
//
// Contract:
//  * MPI starts only in a process that mpirun launched (its environment
//    carries OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE); plain runs never
//    touch MPI.  InitDistributed() is idempotent: the first call starts MPI
//    (MPI_THREAD_FUNNELED: only the thread that started it calls MPI), sets
//    Caffe::solver_rank/solver_count and registers MPI_Finalize at exit.
//  * DistributedCommunicator() is null unless a job of two or more ranks
//    is running.  A thread that trains as one rank of an in-process job
//    (several devices in one process, multi_device.hpp) has its own
//    communicator, set with SetThreadCommunicator; it takes precedence
//    over MPI's for that thread.  A build without MPI refuses a multi-rank launch with an
//    error instead of training N independent copies.
//  * Every collective runs under a watchdog: one that takes longer than
//    dist_timeout() seconds (0: never) prints
//      [rank r] Error: <collective> did not finish within N s: a peer
//      stalled or died
//    and exits the process with status 1, which makes mpirun end the job.
//  * AbortDistributed prints "[rank r] Error: <message>" and ends the whole
//    job with a non-zero status; outside a job it only prints.
#ifndef CAFFE_PARALLEL_DISTRIBUTED_HPP_
#define CAFFE_PARALLEL_DISTRIBUTED_HPP_

#include <string>

#include "caffe/parallel/communicator.hpp"

namespace caffe {

// Whether mpirun launched this process (MPI itself not yet started).
bool LaunchedByMpirun();
// This process's rank and the job's size as mpirun's environment says,
// before MPI starts (0 and 1 outside a job).
int LaunchRank();
// This process's rank among the job's ranks on its machine (the GPU it
// takes under mpirun --gpu); the global rank where the launcher does not
// say.
int LaunchLocalRank();
int LaunchSize();
// Whether this build can run data-parallel jobs (built with MPI).
bool DistributedSupported();

Communicator* InitDistributed();
Communicator* DistributedCommunicator();
// The calling thread's own job communicator (null: none); not owned.
void SetThreadCommunicator(Communicator* comm);
Communicator* ThreadCommunicatorOrNull();

// Installs a thread communicator for a scope and puts the previous one
// back when it ends, however it ends.
class ThreadCommunicatorScope {
 public:
  explicit ThreadCommunicatorScope(Communicator* comm)
      : previous_(ThreadCommunicatorOrNull()) {
    SetThreadCommunicator(comm);
  }
  ~ThreadCommunicatorScope() { SetThreadCommunicator(previous_); }
  ThreadCommunicatorScope(const ThreadCommunicatorScope&) = delete;
  ThreadCommunicatorScope& operator=(const ThreadCommunicatorScope&) = delete;

 private:
  Communicator* previous_;
};

void set_dist_timeout(double seconds);
double dist_timeout();

[[noreturn]] void AbortDistributed(const std::string& message);

// Marks a collective in progress for the watchdog (nesting is not
// supported: collectives are issued one at a time by one thread).
class CollectiveWatch {
 public:
  explicit CollectiveWatch(const std::string& what);
  ~CollectiveWatch();
  CollectiveWatch(const CollectiveWatch&) = delete;
  CollectiveWatch& operator=(const CollectiveWatch&) = delete;
};

}  // namespace caffe

#endif  // CAFFE_PARALLEL_DISTRIBUTED_HPP_
