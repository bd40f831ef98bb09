// fuzz_target.hpp: how a fuzz target is written, built and replayed.
//
// Contract:
//  * A target is one small file in fuzz/: LEANCAFFE_FUZZ_TARGET(name) {
//    ... } gets the input bytes as `data`/`size` and feeds them to one of
//    LeanCaffe's readers the way a user's file would reach it.
//  * Bad input must end in caffe::Error: the target catches it (through
//    Guard) and returns 0.  Anything else is a finding and aborts, so that
//    libFuzzer keeps the input: a crash or sanitizer report, a
//    caffe::InternalError (a broken internal invariant), another exception
//    type (an error without LeanCaffe's context), or a property a target
//    checks (e.g. mem_param changing a result).
//  * The same file builds two ways.  With libFuzzer (make fuzz, clang,
//    ASan + UBSan) each target is its own executable (libfuzzer_main.cpp).
//    In the normal build every target links into `fuzz_replay`
//    (replay_main.cpp), which runs the seed corpus and every input that
//    ever crashed or hung (fuzz/corpus/<name>, fuzz/regressions/<name>)
//    under ctest.
//  * Setup() runs once: quiet logging, a working directory of its own (so
//    files a target writes go there), and a host memory limit
//    (kFuzzMemoryLimit, under libFuzzer's -rss_limit_mb) so that an input
//    asking for more memory is refused by LeanCaffe's own check
//    (util/host_memory_room.hpp), not killed by the fuzzer.
#ifndef LEANCAFFE_FUZZ_FUZZ_TARGET_HPP_
#define LEANCAFFE_FUZZ_FUZZ_TARGET_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace caffe {
namespace fuzz {

typedef std::function<void(const uint8_t*, size_t)> TargetFn;

// Name -> target, filled by LEANCAFFE_FUZZ_TARGET at static init.
std::map<std::string, TargetFn>& Targets();

struct Registration {
  Registration(const char* name, TargetFn fn) { Targets()[name] = fn; }
};

const size_t kFuzzMemoryLimit = size_t(512) << 20;

void Setup();

// Runs `body`, returning normally for caffe::Error and aborting, with the
// message, for anything else thrown.  LEANCAFFE_FUZZ_VERBOSE=1 in the
// environment prints each refusal (to see what a corpus reaches).
void Guard(const std::function<void()>& body);

// Aborts with `what`: a finding.
[[noreturn]] void Finding(const std::string& what);

// False when `text` names a device or kernel file (/dev/, /proc/, /sys/):
// a data layer reading /dev/stdin would block, which is the user's
// request, not a bug, so targets skip such inputs.
bool SafePaths(const std::string& text);

// Writes `bytes` to a file in the working directory; returns its path.
std::string WriteInput(const std::string& name, const uint8_t* data,
                       size_t size);

// Draws small choices from the input's bytes, zeros once it runs out.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool Bool() { return Byte() & 1; }
  // Uniform-ish in [lo, hi].
  int Int(int lo, int hi) {
    const unsigned v = (unsigned(Byte()) << 8) | Byte();
    return lo + static_cast<int>(v % unsigned(hi - lo + 1));
  }
  size_t left() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace fuzz
}  // namespace caffe

#define LEANCAFFE_FUZZ_TARGET(name)                                       \
  static void name##_Target(const uint8_t* data, size_t size);            \
  static ::caffe::fuzz::Registration name##_registration(#name,           \
                                                         name##_Target);  \
  static void name##_Target(const uint8_t* data, size_t size)

#endif  // LEANCAFFE_FUZZ_FUZZ_TARGET_HPP_
