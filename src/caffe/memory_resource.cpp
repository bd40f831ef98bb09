#include "caffe/memory_resource.hpp"

#include <cstring>
#include <limits>

#include "caffe/common.hpp"
#include "caffe/syncedmem.hpp"

namespace caffe {

namespace {

template <typename T>
void FillWithNaN(void* p, size_t count) {
  T* t = static_cast<T*>(p);
  for (size_t i = 0; i < count; ++i) t[i] = std::numeric_limits<T>::quiet_NaN();
}

class HostMemoryResource : public MemoryResource {
 public:
  const char* name() const override { return "host"; }
  void* Allocate(size_t bytes) override {
    void* p = nullptr;
    CaffeMallocHost(&p, bytes);
    return p;
  }
  void Free(void* p, size_t) override { CaffeFreeHost(p); }
  void Fill(void* p, unsigned char value, size_t bytes) override {
    if (bytes) std::memset(p, value, bytes);
  }
  void FillNaN(void* p, size_t count, size_t element_bytes) override {
    if (element_bytes == sizeof(double)) {
      FillWithNaN<double>(p, count);
    } else {
      CAFFE_INTERNAL_CHECK(element_bytes == sizeof(float))
          << "FillNaN of " << element_bytes << "-byte elements";
      FillWithNaN<float>(p, count);
    }
  }
  void Copy(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
};

}  // namespace

MemoryResource* HostMemory() {
  static HostMemoryResource host;
  return &host;
}

#ifndef USE_CUDA
MemoryResource* DeviceMemory() {
  NO_GPU << " (asked for device memory)";
  return nullptr;
}
size_t DeviceBytesInUse() { return 0; }
size_t DeviceBytesPeak() { return 0; }
void ResetDeviceBytesPeak() {}
#endif

std::shared_ptr<char> Shared(MemoryResource* resource, size_t bytes) {
  char* p = static_cast<char*>(resource->Allocate(bytes));
  return std::shared_ptr<char>(
      p, [resource, bytes](char* q) { resource->Free(q, bytes); });
}

}  // namespace caffe
