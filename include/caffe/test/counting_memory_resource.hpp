// counting_memory_resource.hpp: a MemoryResource test double.
//
// Counts allocations, frees and live bytes, and catches misuse instead of
// corrupting memory: a freed block is not returned to the system but kept,
// filled with a pattern, until the double is destroyed, so
//  * Free of a pointer it never handed out, or twice, is recorded;
//  * Fill, FillNaN and Copy on freed bytes are recorded as use after free;
//  * WrittenAfterFree() finds any other write into freed bytes (the pattern
//    changed), and IsLive(p) says whether p points into a live block.
// Tests assert errors().empty() after running.  Constructed with
// device = true it says on_device() (its bytes are still host memory), so
// the binder's GPU placement can be tested on a machine without a GPU.
#ifndef CAFFE_TEST_COUNTING_MEMORY_RESOURCE_HPP_
#define CAFFE_TEST_COUNTING_MEMORY_RESOURCE_HPP_

#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "caffe/memory_resource.hpp"

namespace caffe {

class CountingMemoryResource : public MemoryResource {
 public:
  static const unsigned char kFreedPattern = 0xDB;

  explicit CountingMemoryResource(bool device = false) : device_(device) {}
  ~CountingMemoryResource() override {
    for (auto& b : live_) std::free(b.first);
    for (auto& b : freed_) std::free(b.first);
  }
  const char* name() const override { return "counting"; }
  bool on_device() const override { return device_; }

  void* Allocate(size_t bytes) override {
    if (bytes == 0) return nullptr;
    const size_t rounded = (bytes + 63) / 64 * 64;
    char* p = static_cast<char*>(std::aligned_alloc(64, rounded));
    live_[p] = bytes;
    ++allocations_;
    live_bytes_ += bytes;
    if (live_bytes_ > peak_bytes_) peak_bytes_ = live_bytes_;
    return p;
  }
  void Free(void* p, size_t bytes) override {
    if (!p) return;
    char* c = static_cast<char*>(p);
    auto it = live_.find(c);
    if (it == live_.end()) {
      errors_.push_back(freed_.count(c) ? "double free" : "free of a pointer "
                                                          "never allocated");
      return;
    }
    if (it->second != bytes) errors_.push_back("free with a wrong size");
    std::memset(c, kFreedPattern, it->second);
    freed_[c] = it->second;
    live_bytes_ -= it->second;
    live_.erase(it);
    ++frees_;
  }
  void Fill(void* p, unsigned char value, size_t bytes) override {
    Touch(p, bytes, "Fill");
    std::memset(p, value, bytes);
  }
  void FillNaN(void* p, size_t count, size_t element_bytes) override {
    Touch(p, count * element_bytes, "FillNaN");
    if (element_bytes == sizeof(double)) {
      double* d = static_cast<double*>(p);
      for (size_t i = 0; i < count; ++i)
        d[i] = std::numeric_limits<double>::quiet_NaN();
    } else {
      float* f = static_cast<float*>(p);
      for (size_t i = 0; i < count; ++i)
        f[i] = std::numeric_limits<float>::quiet_NaN();
    }
    ++nan_fills_;
  }
  void Copy(void* dst, const void* src, size_t bytes) override {
    Touch(dst, bytes, "Copy to");
    Touch(src, bytes, "Copy from");
    std::memcpy(dst, src, bytes);
  }

  bool IsLive(const void* p) const { return Find(live_, p); }
  bool IsFreed(const void* p) const { return Find(freed_, p); }
  bool WrittenAfterFree() const {
    for (const auto& b : freed_)
      for (size_t i = 0; i < b.second; ++i)
        if (static_cast<unsigned char>(b.first[i]) != kFreedPattern)
          return true;
    return false;
  }
  int allocations() const { return allocations_; }
  int frees() const { return frees_; }
  int nan_fills() const { return nan_fills_; }
  size_t live_bytes() const { return live_bytes_; }
  size_t peak_bytes() const { return peak_bytes_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  // True when p lies inside one of the blocks.
  static bool Find(const std::map<char*, size_t>& blocks, const void* p) {
    const char* c = static_cast<const char*>(p);
    auto it = blocks.upper_bound(const_cast<char*>(c));
    if (it == blocks.begin()) return false;
    --it;
    return c < it->first + it->second;
  }
  void Touch(const void* p, size_t bytes, const char* what) {
    if (bytes == 0) return;
    if (IsFreed(p)) errors_.push_back(std::string(what) + " freed memory");
  }

  bool device_;
  std::map<char*, size_t> live_, freed_;
  int allocations_ = 0, frees_ = 0, nan_fills_ = 0;
  size_t live_bytes_ = 0, peak_bytes_ = 0;
  std::vector<std::string> errors_;
};

}  // namespace caffe

#endif  // CAFFE_TEST_COUNTING_MEMORY_RESOURCE_HPP_
