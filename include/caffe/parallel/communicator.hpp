// communicator.hpp: the collectives data-parallel training needs, behind
// one seam (the MPI, thread and NCCL implementations live in
// src/caffe/parallel/).
//
// Contract:
//  * A Communicator is the group of processes (ranks 0..size-1) training
//    one model.  Every collective must be entered by every rank, in the
//    same order, with the same counts; that is the caller's invariant.
//  * Sums give every rank the same bits (MPI's algorithms copy the reduced
//    value out to all ranks); with two ranks a sum is a single addition
//    per element, so it does not depend on how values are grouped.
//  * `what` names the collective ("gradient bucket 2/5, iteration 40");
//    a collective that does not finish within the distributed timeout
//    ends the whole job with a message naming it (distributed.hpp).
//  * Abort ends every rank of the job with a non-zero exit status.
#ifndef CAFFE_PARALLEL_COMMUNICATOR_HPP_
#define CAFFE_PARALLEL_COMMUNICATOR_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace caffe {

class Communicator {
 public:
  enum Type { FLOAT, DOUBLE, INT64 };
  virtual ~Communicator() {}
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Whether AllreduceSum/StartAllreduceSum want device (GPU) pointers for
  // large buffers (NCCL).  Such a communicator still takes host pointers
  // everywhere, staging them through the device; sums of device memory
  // are ordered after the work already queued on the device, and Wait
  // orders later device work after the sum.
  virtual bool sums_device_memory() const { return false; }

  // In place: data[i] = sum over ranks of data[i].
  virtual void AllreduceSum(void* data, size_t count, Type type,
                            const std::string& what) = 0;
  // The same without waiting: returns a handle for Wait.  `data` must stay
  // untouched until Wait returns.
  virtual int StartAllreduceSum(void* data, size_t count, Type type,
                                const std::string& what) = 0;
  // Lets requests in flight advance (MPI progresses only inside its calls).
  virtual void Progress() = 0;
  virtual void Wait(int handle) = 0;
  // Copies `bytes` bytes from rank `root` to every other rank.
  virtual void Broadcast(void* data, size_t bytes, int root,
                         const std::string& what) = 0;
  // Every rank's vector (any length), in rank order.
  virtual std::vector<std::vector<uint64_t> > Allgather(
      const std::vector<uint64_t>& mine, const std::string& what) = 0;
  [[noreturn]] virtual void Abort(int exit_code) = 0;

  template <typename Dtype>
  static Type TypeOf();
};

template <>
inline Communicator::Type Communicator::TypeOf<float>() {
  return FLOAT;
}
template <>
inline Communicator::Type Communicator::TypeOf<double>() {
  return DOUBLE;
}

}  // namespace caffe

#endif  // CAFFE_PARALLEL_COMMUNICATOR_HPP_
