// common.hpp: what every LeanCaffe file needs.
//
// Contract:
//  * Errors a user can cause (bad prototxt, wrong shapes, missing files) are
//    reported by throwing caffe::Error, whose message names the file, line,
//    layer or blob involved.  Nothing in the library aborts the host process
//    for such errors, so Python and Octave hosts survive them.
//  * CAFFE_CHECK*(...) << "context" evaluate the condition once and throw
//    caffe::Error with the streamed context when it fails.
//  * A broken invariant inside LeanCaffe (a bug, never the user's input) is
//    a different thing, kept apart as LevelDB keeps Status apart from
//    assert: CAFFE_INTERNAL_CHECK(cond) << "context" throws
//    caffe::InternalError, whose message starts with "LeanCaffe internal
//    error at <source file>:<line>" and asks for a report.  It is not a
//    caffe::Error, so no caller mistakes it for bad input; hosts still
//    catch it (std::exception) and survive.
//  * Caffe holds the process-wide settings (CPU/GPU mode, random seed).
#ifndef CAFFE_COMMON_HPP_
#define CAFFE_COMMON_HPP_

#include <glog/logging.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace caffe {

using std::shared_ptr;
using std::string;
using std::vector;
using std::map;
using std::set;
using std::pair;
using std::make_pair;
using std::ostringstream;

// The one exception type for user-caused errors.
class Error : public std::runtime_error {
 public:
  explicit Error(const string& what) : std::runtime_error(what) {}
};

// Reading a blob whose memory mem_param handed to another buffer (or that
// it has not computed since): a user error, so a caffe::Error, with a type
// of its own so pycaffe and matcaffe can raise their specific errors.
class BlobNotReadable : public Error {
 public:
  explicit BlobNotReadable(const string& what) : Error(what) {}
};

// A bug in LeanCaffe: an invariant the code itself should have kept.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const string& what) : std::logic_error(what) {}
};

// Re-throws `e` with `context` (a layer, a file) in front of its message,
// keeping its kind: a bug stays an InternalError, a refused read a
// BlobNotReadable, and running out of memory a std::bad_alloc.
[[noreturn]] void RethrowWithContext(const string& context,
                                     const std::exception& e);

// Collects a message through operator<< and throws it as caffe::Error when the
// full expression ends.  Throwing from a destructor is deliberate here: the
// object only lives inside a failed check, never during stack unwinding.
class ErrorThrower {
 public:
  ErrorThrower(const char* file, int line, const char* cond) {
    stream_ << cond;
    (void)file; (void)line;
  }
  ~ErrorThrower() noexcept(false) { throw Error(stream_.str()); }
  template <typename T>
  ErrorThrower& operator<<(const T& v) { stream_ << v; return *this; }
 private:
  std::ostringstream stream_;
};

// The same for CAFFE_INTERNAL_CHECK: InternalError naming the source line.
class InternalErrorThrower {
 public:
  InternalErrorThrower(const char* file, int line, const char* cond) {
    stream_ << "LeanCaffe internal error at " << file << ":" << line
            << " (a bug; please report it with this message): " << cond;
  }
  ~InternalErrorThrower() noexcept(false) {
    throw InternalError(stream_.str());
  }
  template <typename T>
  InternalErrorThrower& operator<<(const T& v) { stream_ << v; return *this; }
 private:
  std::ostringstream stream_;
};

namespace internal {
// Formats "a op b (x vs y)" for comparison checks.
template <typename A, typename B>
string CompareMessage(const char* expr, const A& a, const B& b) {
  std::ostringstream s;
  s << "Check failed: " << expr << " (" << a << " vs. " << b << "): ";
  return s.str();
}
}  // namespace internal

// `while` rather than `if`/`else`: no dangling-else surprises, and the
// thrower ends the loop by throwing at the end of the full expression.
#define CAFFE_CHECK(cond)                                               \
  while (!(cond))                                                       \
    ::caffe::ErrorThrower(__FILE__, __LINE__, "Check failed: " #cond ": ")

#define CAFFE_CHECK_OP_(a, b, op)                                          \
  while (!((a) op (b)))                                                    \
    ::caffe::ErrorThrower(__FILE__, __LINE__, "") <<                      \
        ::caffe::internal::CompareMessage(#a " " #op " " #b, (a), (b))

#define CAFFE_CHECK_EQ(a, b) CAFFE_CHECK_OP_(a, b, ==)
#define CAFFE_CHECK_NE(a, b) CAFFE_CHECK_OP_(a, b, !=)
#define CAFFE_CHECK_LT(a, b) CAFFE_CHECK_OP_(a, b, <)
#define CAFFE_CHECK_LE(a, b) CAFFE_CHECK_OP_(a, b, <=)
#define CAFFE_CHECK_GT(a, b) CAFFE_CHECK_OP_(a, b, >)
#define CAFFE_CHECK_GE(a, b) CAFFE_CHECK_OP_(a, b, >=)
#define CAFFE_THROW() ::caffe::ErrorThrower(__FILE__, __LINE__, "")

#define CAFFE_INTERNAL_CHECK(cond)                                        \
  while (!(cond))                                                         \
  ::caffe::InternalErrorThrower(__FILE__, __LINE__, "check failed: " #cond \
                                ": ")

#define DISABLE_COPY_AND_ASSIGN(classname) \
  classname(const classname&) = delete;    \
  classname& operator=(const classname&) = delete

#define INSTANTIATE_CLASS(classname)  \
  template class classname<float>;    \
  template class classname<double>

// A GPU entry point in a build without CUDA.
#define NO_GPU CAFFE_THROW() << "Cannot use GPU in a CPU-only LeanCaffe build."

// Process-wide settings.  One instance per thread, as in Caffe, so prefetch
// threads get their own random stream.
class Caffe {
 public:
  enum Brew { CPU, GPU };
  static Caffe& Get();

  static Brew mode() { return Get().mode_; }
  // GPU mode needs a CUDA build and a usable device: otherwise it is
  // refused (caffe::Error saying why) and the mode stays CPU, since layers
  // would otherwise fall back to their CPU code silently, outside any plan.
  static void set_mode(Brew mode);
  // The CUDA device this thread uses (cudaSetDevice); GPU 0 until set.
  static int device() { return Get().device_; }
  // Seeds the random generator used by fillers, dropout and shuffling.
  static void set_random_seed(unsigned int seed);
  // Selects GPU device_id for this thread (caffe::Error when it does not
  // exist or this build has no CUDA).
  static void SetDevice(int device_id);
  // Logs the current device's properties (or why there is none).
  static void DeviceQuery();
  // True when device_id exists and a context can be made on it.
  static bool CheckDevice(int device_id);
  // Number of usable GPUs (0 in a CPU-only build or without a device);
  // `why`, if given, says why there are none.
  static int GpuCount(string* why = nullptr);
  // Waits for the GPU's queued work in GPU mode (timers); no-op on the CPU.
  static void Synchronize();
  // The data-parallel job (parallel/distributed.hpp): how many ranks
  // train together and which one this thread belongs to.  Data layers
  // shard records by them; only the root solver writes snapshots.
  static int solver_count() { return Get().solver_count_; }
  static void set_solver_count(int val) { Get().solver_count_ = val; }
  static int solver_rank() { return Get().solver_rank_; }
  static bool root_solver() { return Get().solver_rank_ == 0; }
  static void set_solver_rank(int r) { Get().solver_rank_ = r; }
  // Several processes train together (a job of two or more ranks).
  static bool multiprocess() { return Get().solver_count_ > 1; }

  typedef std::mt19937 RNG;
  static RNG& rng() { return Get().rng_; }

 private:
  Caffe();
  Brew mode_;
  int device_;
  int solver_count_;
  int solver_rank_;
  RNG rng_;
};

// Seed drawn from the shared stream; used to give child generators
// (per-layer, per-thread) reproducible but distinct seeds.
unsigned int caffe_rng_rand();

// Initializes glog and gflags for command-line tools, and ignores SIGXFSZ
// (writes over a file-size limit fail with an error instead).
void GlobalInit(int* pargc, char*** pargv);

}  // namespace caffe

#endif  // CAFFE_COMMON_HPP_
