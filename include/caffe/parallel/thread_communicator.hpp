// thread_communicator.hpp: a Communicator whose ranks are threads of one
// process (in-process multi-device training, and the CPU tests of the
// data-parallel logic, which need no mpirun).
//
// Contract:
//  * A ThreadGroup of N ranks is shared by N ThreadCommunicators, one per
//    thread, each used by its own thread only.  The group outlives them.
//  * Collectives meet at barriers: every rank enters each one in the same
//    order with the same counts (the Communicator's invariant).  Sums add
//    the ranks' values in rank order (x0 + x1 + ... + xN-1), so every rank
//    gets the same bits, run after run.  StartAllreduceSum completes the
//    sum before it returns (host threads gain nothing from deferring it);
//    Wait only checks the handle.
//  * A rank that fails calls Abort (or the launcher calls
//    ThreadGroup::Abort with its error): every rank waiting in a
//    collective, or entering one later, gets a caffe::Error saying that
//    rank `r` failed, instead of waiting forever.  A collective that waits
//    longer than dist_timeout() seconds (0: never) raises an Error naming
//    it and "a peer stalled or died", and aborts the group.
#ifndef CAFFE_PARALLEL_THREAD_COMMUNICATOR_HPP_
#define CAFFE_PARALLEL_THREAD_COMMUNICATOR_HPP_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "caffe/parallel/communicator.hpp"

namespace caffe {

class ThreadGroup {
 public:
  explicit ThreadGroup(int size);
  int size() const { return size_; }
  // Makes every current and later collective of the group raise an Error
  // carrying `why`.  The first reason given is kept.
  void Abort(const std::string& why);
  bool aborted();

 private:
  friend class ThreadCommunicator;
  // Waits until all ranks have arrived (a reusable barrier); raises the
  // abort reason, or a timeout Error naming `what`.
  void Arrive(const std::string& what);

  const int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::string abort_reason_;
  // Per rank: the buffer it offers in the current collective.
  std::vector<void*> slots_;
  std::vector<const std::vector<uint64_t>*> gather_slots_;
  // The reduced value, written in slices by the ranks.
  std::vector<char> result_;
};

class ThreadCommunicator : public Communicator {
 public:
  ThreadCommunicator(ThreadGroup* group, int rank);
  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  // Whether any rank of the group has failed.
  bool group_aborted() const { return group_->aborted(); }

  void AllreduceSum(void* data, size_t count, Type type,
                    const std::string& what) override;
  int StartAllreduceSum(void* data, size_t count, Type type,
                        const std::string& what) override;
  void Progress() override {}
  void Wait(int handle) override;
  void Broadcast(void* data, size_t bytes, int root,
                 const std::string& what) override;
  std::vector<std::vector<uint64_t> > Allgather(
      const std::vector<uint64_t>& mine, const std::string& what) override;
  // Aborts the group and raises an Error on this thread; the process
  // lives on (the launcher reports the failure and exits).
  [[noreturn]] void Abort(int exit_code) override;

 private:
  ThreadGroup* group_;
  int rank_;
  int next_handle_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_PARALLEL_THREAD_COMMUNICATOR_HPP_
