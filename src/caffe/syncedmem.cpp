#include "caffe/syncedmem.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "caffe/memory_resource.hpp"
#include "caffe/util/host_memory_room.hpp"

namespace caffe {

namespace {
// Every host allocation counts toward these, so benchmarks and `caffe mem`
// can report measured peaks next to the plan.
std::atomic<size_t> g_bytes_in_use(0);
std::atomic<size_t> g_bytes_peak(0);
// The allocation's size lives in a 64-byte header in front of it, which
// keeps the returned pointer 64-byte aligned.
const size_t kHeader = 64;
// Allocations this large start on a 2 MiB boundary and ask for huge pages.
const size_t kHugePage = size_t(2) << 20;
const size_t kHugeFrom = size_t(4) << 20;
}  // namespace

size_t HostBytesInUse() { return g_bytes_in_use.load(); }
size_t HostBytesPeak() { return g_bytes_peak.load(); }
void ResetHostBytesPeak() { g_bytes_peak.store(g_bytes_in_use.load()); }

void CaffeMallocHost(void** ptr, size_t size) {
  *ptr = nullptr;
  if (size == 0) return;
  // Refuses, with the room left and what limits it, rather than letting
  // the kernel's OOM killer or an rlimit end the process later.
  CheckHostAllocation(size);
  // 64-byte alignment suits AVX-512 kernels in OpenBLAS and oneDNN.
  const size_t rounded = ((size + 63) / 64) * 64;
  const bool huge = rounded + kHeader >= kHugeFrom;
  // posix_memalign, not aligned_alloc: C11 wants the size a multiple of
  // the alignment, which a 2 MiB alignment would not be (ASan enforces it).
  void* raw = nullptr;
  const int failed =
      posix_memalign(&raw, huge ? kHugePage : 64, rounded + kHeader);
  char* base = failed ? nullptr : static_cast<char*>(raw);
  CAFFE_CHECK(base != nullptr) << "host allocation of " << size
                               << " bytes failed";
  if (huge) {
    // Large tensors are swept whole by every layer: 2 MiB pages spare the
    // TLB (where the kernel leaves transparent huge pages to madvise).
    // Advice only: a refusal changes nothing.
    madvise(base, (rounded + kHeader) / kHugePage * kHugePage, MADV_HUGEPAGE);
  }
  *reinterpret_cast<size_t*>(base) = rounded;
  const size_t now = g_bytes_in_use += rounded;
  size_t peak = g_bytes_peak.load();
  while (now > peak && !g_bytes_peak.compare_exchange_weak(peak, now)) {
  }
  *ptr = base + kHeader;
}

void CaffeFreeHost(void* ptr) {
  if (!ptr) return;
  char* base = static_cast<char*>(ptr) - kHeader;
  g_bytes_in_use -= *reinterpret_cast<size_t*>(base);
  std::free(base);
}

SyncedMemory::SyncedMemory()
    : cpu_ptr_(nullptr), gpu_ptr_(nullptr), size_(0), head_(UNINITIALIZED),
      own_cpu_data_(false), own_gpu_data_(false), host_(HostMemory()) {}

SyncedMemory::SyncedMemory(size_t size)
    : cpu_ptr_(nullptr), gpu_ptr_(nullptr), size_(size),
      head_(UNINITIALIZED), own_cpu_data_(false), own_gpu_data_(false),
      host_(HostMemory()) {}

SyncedMemory::~SyncedMemory() {
  if (cpu_ptr_ && own_cpu_data_) host_->Free(cpu_ptr_, size_);
#ifdef USE_CUDA
  if (gpu_ptr_ && own_gpu_data_) DeviceMemory()->Free(gpu_ptr_, size_);
#endif
}

void SyncedMemory::to_cpu() {
  switch (head_) {
    case UNINITIALIZED:
      // A head dropped by release_*_data may still hold its own bytes.
      if (!cpu_ptr_) {
        cpu_ptr_ = host_->Allocate(size_);
        own_cpu_data_ = true;
      }
      host_->Fill(cpu_ptr_, 0, size_);
      head_ = HEAD_AT_CPU;
      break;
    case HEAD_AT_GPU:
#ifdef USE_CUDA
      if (!cpu_ptr_) {
        cpu_ptr_ = host_->Allocate(size_);
        own_cpu_data_ = true;
      }
      DeviceMemory()->Copy(cpu_ptr_, gpu_ptr_, size_);
      head_ = SYNCED;
#else
      NO_GPU;
#endif
      break;
    case HEAD_AT_CPU:
    case SYNCED:
      break;
  }
}

void SyncedMemory::to_gpu() {
#ifdef USE_CUDA
  MemoryResource* device = DeviceMemory();
  switch (head_) {
    case UNINITIALIZED:
      if (!gpu_ptr_) {
        gpu_ptr_ = device->Allocate(size_);
        own_gpu_data_ = true;
      }
      device->Fill(gpu_ptr_, 0, size_);
      head_ = HEAD_AT_GPU;
      break;
    case HEAD_AT_CPU:
      if (!gpu_ptr_) {
        gpu_ptr_ = device->Allocate(size_);
        own_gpu_data_ = true;
      }
      device->Copy(gpu_ptr_, cpu_ptr_, size_);
      head_ = SYNCED;
      break;
    case HEAD_AT_GPU:
    case SYNCED:
      break;
  }
#else
  NO_GPU;
#endif
}

const void* SyncedMemory::cpu_data() {
  if (not_readable_cause_) ThrowNotReadable();
  to_cpu();
  return cpu_ptr_;
}

void SyncedMemory::set_cpu_data(void* data) {
  set_cpu_data(data, nullptr);
}

void SyncedMemory::set_cpu_data(void* data, std::shared_ptr<void> keeper) {
  CAFFE_CHECK(data) << "set_cpu_data needs a non-null pointer";
  if (own_cpu_data_) host_->Free(cpu_ptr_, size_);
  cpu_ptr_ = data;
  cpu_keeper_ = std::move(keeper);
  head_ = HEAD_AT_CPU;
  own_cpu_data_ = false;
  ClearNotReadable();
}

void SyncedMemory::release_cpu_data() {
  if (own_cpu_data_ || !cpu_ptr_) return;
  cpu_ptr_ = nullptr;
  cpu_keeper_.reset();
  head_ = (head_ == SYNCED) ? HEAD_AT_GPU : UNINITIALIZED;
  ClearNotReadable();
}

void SyncedMemory::release_gpu_data() {
  if (own_gpu_data_ || !gpu_ptr_) return;
  gpu_ptr_ = nullptr;
  gpu_keeper_.reset();
  head_ = (head_ == SYNCED) ? HEAD_AT_CPU : UNINITIALIZED;
  ClearNotReadable();
}

const void* SyncedMemory::gpu_data() {
  if (not_readable_cause_) ThrowNotReadable();
  to_gpu();
  return gpu_ptr_;
}

void SyncedMemory::set_gpu_data(void* data) { set_gpu_data(data, nullptr); }

void SyncedMemory::set_gpu_data(void* data, std::shared_ptr<void> keeper) {
#ifdef USE_CUDA
  CAFFE_CHECK(data) << "set_gpu_data needs a non-null pointer";
  if (own_gpu_data_) DeviceMemory()->Free(gpu_ptr_, size_);
  gpu_ptr_ = data;
  gpu_keeper_ = std::move(keeper);
  head_ = HEAD_AT_GPU;
  own_gpu_data_ = false;
  ClearNotReadable();
#else
  (void)data;
  (void)keeper;
  NO_GPU;
#endif
}

void* SyncedMemory::mutable_cpu_data() {
  ClearNotReadable();
  to_cpu();
  head_ = HEAD_AT_CPU;
  return cpu_ptr_;
}

void* SyncedMemory::mutable_gpu_data() {
  ClearNotReadable();
  to_gpu();
  head_ = HEAD_AT_GPU;
  return gpu_ptr_;
}

void SyncedMemory::MarkNotReadable(std::shared_ptr<const NotReadableNote> note,
                                   std::shared_ptr<const std::string> cause) {
  CAFFE_CHECK(note && cause) << "MarkNotReadable needs a note and a cause";
  not_readable_note_ = std::move(note);
  not_readable_cause_ = std::move(cause);
}

std::string SyncedMemory::NotReadableMessage() const {
  if (!not_readable_cause_) return "";
  return not_readable_note_->subject + *not_readable_cause_ +
         not_readable_note_->fix;
}

void SyncedMemory::ThrowNotReadable() const {
  throw BlobNotReadable(NotReadableMessage());
}

}  // namespace caffe
