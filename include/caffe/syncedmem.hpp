// syncedmem.hpp: a byte buffer with a CPU head and a GPU head.
//
// Contract: allocation is lazy (the first cpu_data()/mutable_cpu_data()
// allocates and zero-fills), so a blob that is never touched costs nothing.
// The CPU head's own bytes come from HostMemory() (memory_resource.hpp).
// set_cpu_data() points the buffer at memory owned by someone else (the memory
// planner's arena, a Python array); the buffer then never frees it.  In a
// build without CUDA the GPU head refuses with caffe::Error.
//
// The GPU head (USE_CUDA): the same lazy allocation from DeviceMemory(),
// and copies between the heads on demand, as in Caffe (head() says which
// side is current).  set_gpu_data(p, keeper) is the GPU twin of
// set_cpu_data: the plan's device arena binds there.  The memory planner
// places one head only -- the GPU head when the net was planned in GPU
// mode -- and Place/placed_ptr/ReleasePlaced name that head, so the binder
// is the same code for both devices.
//
// The readability guard: the memory planner's binder marks a buffer "not
// readable" when it hands the buffer's bytes to another buffer (or binds it
// to bytes nothing has written yet).  While marked, the read accessors
// (cpu_data, gpu_data) throw caffe::BlobNotReadable with the binder's
// message, so no reader -- a layer, a tool, pycaffe, matcaffe, a C++ API
// user -- sees another buffer's bytes.  Any write access (mutable_*_data,
// set_*_data) clears the mark: the producer writing the buffer makes it
// readable again.  The check is one pointer test.
#ifndef CAFFE_SYNCEDMEM_HPP_
#define CAFFE_SYNCEDMEM_HPP_

#include <cstdlib>
#include <memory>
#include <string>

#include "caffe/common.hpp"

namespace caffe {

class MemoryResource;

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
  // Points the CPU head at `data`, keeping `keeper` (the owner of the bytes,
  // e.g. the planner's arena) alive while it points there.
  void set_cpu_data(void* data, std::shared_ptr<void> keeper);
  const void* gpu_data();
  void set_gpu_data(void* data);
  void set_gpu_data(void* data, std::shared_ptr<void> keeper);
  void* mutable_cpu_data();
  void* mutable_gpu_data();

  enum SyncedHead { UNINITIALIZED, HEAD_AT_CPU, HEAD_AT_GPU, SYNCED };
  SyncedHead head() const { return head_; }
  size_t size() const { return size_; }
  // True when this buffer allocated its CPU memory itself.
  bool owns_cpu_data() const { return own_cpu_data_; }
  // Drops external CPU bytes (set_cpu_data): the buffer is unallocated
  // again and its next access allocates zero-filled memory of its own.  The
  // binder calls it for buffers a new plan no longer places.
  void release_cpu_data();
  // Where the CPU head points now (null before allocation), without
  // allocating or checking readability: for the binder's bookkeeping.
  void* cpu_ptr() const { return cpu_ptr_; }
  // What keeps the external CPU bytes alive (null when this buffer owns its
  // bytes): a view handed to Python or Octave holds a copy, so a re-plan
  // never leaves it reading freed memory.
  const std::shared_ptr<void>& cpu_keeper() const { return cpu_keeper_; }
  void* gpu_ptr() const { return gpu_ptr_; }
  const std::shared_ptr<void>& gpu_keeper() const { return gpu_keeper_; }
  bool owns_gpu_data() const { return own_gpu_data_; }
  // Drops external GPU bytes (set_gpu_data with a keeper), as
  // release_cpu_data does for the CPU head.
  void release_gpu_data();

  // The head a memory plan places (the GPU head when `device`): the
  // binder's view, so one binder serves both devices.
  void Place(bool device, void* data, std::shared_ptr<void> keeper) {
    if (device) {
      set_gpu_data(data, std::move(keeper));
    } else {
      set_cpu_data(data, std::move(keeper));
    }
  }
  void* placed_ptr(bool device) const { return device ? gpu_ptr_ : cpu_ptr_; }
  const std::shared_ptr<void>& placed_keeper(bool device) const {
    return device ? gpu_keeper_ : cpu_keeper_;
  }
  void ReleasePlaced(bool device) {
    if (device) {
      release_gpu_data();
    } else {
      release_cpu_data();
    }
  }

  // The guard (see the file comment).  The message is subject + cause +
  // fix: the binder shares one subject/fix pair per buffer and one cause
  // per reusing buffer rather than building a string per event.
  struct NotReadableNote {
    std::string subject;  // "blob 'x' is not readable: "
    std::string fix;      // "Add exclude_blob: ..."
  };
  void MarkNotReadable(std::shared_ptr<const NotReadableNote> note,
                       std::shared_ptr<const std::string> cause);
  bool readable() const { return !not_readable_cause_; }
  // Empty when readable.
  std::string NotReadableMessage() const;

 private:
  void to_cpu();
  void to_gpu();
  void ThrowNotReadable() const;
  void ClearNotReadable() {
    if (not_readable_cause_) {
      not_readable_cause_.reset();
      not_readable_note_.reset();
    }
  }

  void* cpu_ptr_;
  void* gpu_ptr_;
  size_t size_;
  SyncedHead head_;
  bool own_cpu_data_;
  bool own_gpu_data_;
  MemoryResource* host_;  // where the CPU head's own bytes come from
  std::shared_ptr<void> cpu_keeper_;
  std::shared_ptr<void> gpu_keeper_;
  std::shared_ptr<const NotReadableNote> not_readable_note_;
  std::shared_ptr<const std::string> not_readable_cause_;

  DISABLE_COPY_AND_ASSIGN(SyncedMemory);
};

}  // namespace caffe

#endif  // CAFFE_SYNCEDMEM_HPP_
