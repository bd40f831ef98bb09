#include "caffe/syncedmem.hpp"

#include <cstring>

namespace caffe {

void CaffeMallocHost(void** ptr, size_t size) {
  // 64-byte alignment suits AVX-512 kernels in OpenBLAS and oneDNN.
  size_t rounded = ((size + 63) / 64) * 64;
  *ptr = rounded ? std::aligned_alloc(64, rounded) : nullptr;
  CAFFE_CHECK(*ptr || size == 0) << "host allocation of " << size
                                 << " bytes failed";
}

void CaffeFreeHost(void* ptr) { std::free(ptr); }

SyncedMemory::SyncedMemory()
    : cpu_ptr_(nullptr), gpu_ptr_(nullptr), size_(0), head_(UNINITIALIZED),
      own_cpu_data_(false), own_gpu_data_(false) {}

SyncedMemory::SyncedMemory(size_t size)
    : cpu_ptr_(nullptr), gpu_ptr_(nullptr), size_(size),
      head_(UNINITIALIZED), own_cpu_data_(false), own_gpu_data_(false) {}

SyncedMemory::~SyncedMemory() {
  if (cpu_ptr_ && own_cpu_data_) CaffeFreeHost(cpu_ptr_);
}

void SyncedMemory::to_cpu() {
  switch (head_) {
    case UNINITIALIZED:
      CaffeMallocHost(&cpu_ptr_, size_);
      if (size_) std::memset(cpu_ptr_, 0, size_);
      head_ = HEAD_AT_CPU;
      own_cpu_data_ = true;
      break;
    case HEAD_AT_GPU:
      NO_GPU;
      break;
    case HEAD_AT_CPU:
    case SYNCED:
      break;
  }
}

void SyncedMemory::to_gpu() { NO_GPU; }

const void* SyncedMemory::cpu_data() {
  to_cpu();
  return cpu_ptr_;
}

void SyncedMemory::set_cpu_data(void* data) {
  CAFFE_CHECK(data) << "set_cpu_data needs a non-null pointer";
  if (own_cpu_data_) CaffeFreeHost(cpu_ptr_);
  cpu_ptr_ = data;
  head_ = HEAD_AT_CPU;
  own_cpu_data_ = false;
}

const void* SyncedMemory::gpu_data() {
  to_gpu();
  return gpu_ptr_;
}

void SyncedMemory::set_gpu_data(void* data) {
  (void)data;
  NO_GPU;
}

void* SyncedMemory::mutable_cpu_data() {
  to_cpu();
  head_ = HEAD_AT_CPU;
  return cpu_ptr_;
}

void* SyncedMemory::mutable_gpu_data() {
  to_gpu();
  return gpu_ptr_;
}

}  // namespace caffe
