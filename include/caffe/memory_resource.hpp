// memory_resource.hpp: the device seam for memory, in the spirit of ggml's
// buffer types and LevelDB's Env.
//
// Contract:
//  * A MemoryResource allocates, frees, fills and copies bytes of one kind
//    of memory (host now; a CUDA resource adds device memory).  Everything
//    that owns activation memory -- SyncedMemory's CPU head, the memory
//    plan's arena, the DYNAMIC pool, buffers detached from the plan, check
//    mode's NaN fill -- reaches it through a resource, never malloc or
//    memset directly, so a second device is one more resource, not a second
//    binder or pool.
//  * Allocate(bytes) returns memory aligned to 64 bytes, or throws
//    caffe::Error naming the size when the resource has none left; bytes 0
//    returns null.  Free(p, bytes) takes what Allocate returned with the same
//    byte count (null is ignored).
//  * FillNaN writes quiet NaNs of the given element size (4: float,
//    8: double) over `count` elements.
//  * HostMemory() is the process-wide host resource: CaffeMallocHost, so
//    its bytes count in HostBytesInUse/HostBytesPeak.
//  * DeviceMemory() is the current GPU's resource (cudaMalloc, counted in
//    DeviceBytesInUse/DeviceBytesPeak); on_device() is true for it.  Its
//    Allocate throws caffe::Error naming the size, the GPU and its free
//    memory when the card is full.  In a CPU-only build DeviceMemory()
//    throws caffe::Error, and the counters stay 0.
//  * Shared(resource, bytes): an owning handle that frees through the
//    resource when its last copy goes (what SyncedMemory keepers hold).
#ifndef CAFFE_MEMORY_RESOURCE_HPP_
#define CAFFE_MEMORY_RESOURCE_HPP_

#include <cstddef>
#include <memory>

namespace caffe {

class MemoryResource {
 public:
  virtual ~MemoryResource() {}
  virtual const char* name() const = 0;
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Free(void* p, size_t bytes) = 0;
  virtual void Fill(void* p, unsigned char value, size_t bytes) = 0;
  virtual void FillNaN(void* p, size_t count, size_t element_bytes) = 0;
  virtual void Copy(void* dst, const void* src, size_t bytes) = 0;
  // True for GPU memory: the binder then places SyncedMemory's GPU head.
  virtual bool on_device() const { return false; }
};

MemoryResource* HostMemory();
MemoryResource* DeviceMemory();
size_t DeviceBytesInUse();
size_t DeviceBytesPeak();
void ResetDeviceBytesPeak();

std::shared_ptr<char> Shared(MemoryResource* resource, size_t bytes);

}  // namespace caffe

#endif  // CAFFE_MEMORY_RESOURCE_HPP_
