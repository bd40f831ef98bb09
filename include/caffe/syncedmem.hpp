// syncedmem.hpp: a byte buffer with a CPU head and a GPU head.
//
// Contract: allocation is lazy (the first cpu_data()/mutable_cpu_data()
// allocates and zero-fills), so a blob that is never touched costs nothing.
// set_cpu_data() points the buffer at memory owned by someone else (the memory
// planner's arena, a Python array); the buffer then never frees it.  In a
// build without CUDA the GPU head refuses with caffe::Error.
#ifndef CAFFE_SYNCEDMEM_HPP_
#define CAFFE_SYNCEDMEM_HPP_

#include <cstdlib>

#include "caffe/common.hpp"

namespace caffe {

// 64-byte aligned host memory, counted in HostBytesInUse/HostBytesPeak.
void CaffeMallocHost(void** ptr, size_t size);
void CaffeFreeHost(void* ptr);
// Bytes of host memory held through CaffeMallocHost now, and the most held
// since start or the last ResetHostBytesPeak.
size_t HostBytesInUse();
size_t HostBytesPeak();
void ResetHostBytesPeak();

class SyncedMemory {
 public:
  SyncedMemory();
  explicit SyncedMemory(size_t size);
  ~SyncedMemory();

  const void* cpu_data();
  void set_cpu_data(void* data);
  const void* gpu_data();
  void set_gpu_data(void* data);
  void* mutable_cpu_data();
  void* mutable_gpu_data();

  enum SyncedHead { UNINITIALIZED, HEAD_AT_CPU, HEAD_AT_GPU, SYNCED };
  SyncedHead head() const { return head_; }
  size_t size() const { return size_; }
  // True when this buffer allocated its CPU memory itself.
  bool owns_cpu_data() const { return own_cpu_data_; }

 private:
  void to_cpu();
  void to_gpu();

  void* cpu_ptr_;
  void* gpu_ptr_;
  size_t size_;
  SyncedHead head_;
  bool own_cpu_data_;
  bool own_gpu_data_;

  DISABLE_COPY_AND_ASSIGN(SyncedMemory);
};

}  // namespace caffe

#endif  // CAFFE_SYNCEDMEM_HPP_
