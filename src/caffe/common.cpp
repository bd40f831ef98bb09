#include "caffe/common.hpp"

#include <gflags/gflags.h>

#include <chrono>
#include <csignal>
#include <new>

#include "caffe/util/cuda.hpp"

namespace caffe {

Caffe& Caffe::Get() {
  thread_local Caffe instance;
  return instance;
}

Caffe::Caffe() : mode_(CPU), device_(0), solver_count_(1), solver_rank_(0) {
  // Unseeded runs differ from run to run, as in Caffe (random_seed: -1).
  rng_.seed(static_cast<unsigned int>(
      std::chrono::high_resolution_clock::now().time_since_epoch().count()));
}

void Caffe::set_random_seed(unsigned int seed) { Get().rng_.seed(seed); }

#ifndef USE_CUDA

// The same words as a CUDA build without a device ("no GPU..."), so
// callers and tests need not know which build they run in.
void Caffe::set_mode(Brew mode) {
  string why;
  if (mode == GPU && GpuCount(&why) == 0)
    throw Error("Caffe::set_mode(Caffe::GPU) refused, the mode stays CPU: " +
                why);
  Get().mode_ = mode;
}

void Caffe::SetDevice(int device_id) {
  string why;
  GpuCount(&why);
  throw Error("cannot use GPU " + std::to_string(device_id) + ": " + why);
}

void Caffe::DeviceQuery() {
  LOG(INFO) << "This LeanCaffe build has no CUDA support; no GPU to query.";
}

bool Caffe::CheckDevice(int device_id) {
  (void)device_id;
  return false;
}

int Caffe::GpuCount(string* why) {
  if (why) *why = "no GPU support in this LeanCaffe build (CPU only)";
  return 0;
}

void Caffe::Synchronize() {}

#else  // USE_CUDA

void Caffe::set_mode(Brew mode) {
  if (mode == GPU) {
    string why;
    if (caffe::GpuCount(&why) == 0)
      throw Error("Caffe::set_mode(Caffe::GPU) refused, the mode stays CPU: " +
                  why);
    CUDA_CHECK(cudaSetDevice(Get().device_));
  }
  Get().mode_ = mode;
}

void Caffe::SetDevice(int device_id) {
  string why;
  const int count = caffe::GpuCount(&why);
  CAFFE_CHECK(count > 0) << "cannot use GPU " << device_id << ": " << why;
  CAFFE_CHECK(device_id >= 0 && device_id < count)
      << "GPU " << device_id << " does not exist: this machine has " << count
      << " GPU" << (count == 1 ? "" : "s") << " (ids 0 to " << count - 1
      << ")";
  CUDA_CHECK(cudaSetDevice(device_id));
  Get().device_ = device_id;
}

void Caffe::DeviceQuery() {
  string why;
  if (caffe::GpuCount(&why) == 0) {
    LOG(INFO) << why;
    return;
  }
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p;
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  LOG(INFO) << "Device id:                     " << device;
  LOG(INFO) << "Name:                          " << p.name;
  LOG(INFO) << "Compute capability:            " << p.major << "." << p.minor;
  LOG(INFO) << "Total global memory:           " << p.totalGlobalMem;
  LOG(INFO) << "Free global memory:            " << free_bytes;
  LOG(INFO) << "Total shared memory per block: " << p.sharedMemPerBlock;
  LOG(INFO) << "Total registers per block:     " << p.regsPerBlock;
  LOG(INFO) << "Warp size:                     " << p.warpSize;
  LOG(INFO) << "Maximum threads per block:     " << p.maxThreadsPerBlock;
  LOG(INFO) << "Number of multiprocessors:     " << p.multiProcessorCount;
  LOG(INFO) << "L2 cache size:                 " << p.l2CacheSize;
  LOG(INFO) << "Integrated:                    "
            << (p.integrated ? "Yes" : "No");
}

bool Caffe::CheckDevice(int device_id) {
  if (device_id < 0 || device_id >= caffe::GpuCount(nullptr)) return false;
  // A context can be made: cudaFree(0) forces one on the device.
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return false;
  const bool ok = cudaSetDevice(device_id) == cudaSuccess &&
                  cudaFree(nullptr) == cudaSuccess;
  cudaSetDevice(previous);
  return ok;
}

int Caffe::GpuCount(string* why) { return caffe::GpuCount(why); }

void Caffe::Synchronize() {
  if (mode() == GPU) CUDA_CHECK(cudaDeviceSynchronize());
}

#endif  // USE_CUDA

unsigned int caffe_rng_rand() { return Caffe::rng()(); }

void GlobalInit(int* pargc, char*** pargv) {
  // Caffe 1.0's logs start "I1121 09:49:54..."; Debian's glog 0.6 adds the
  // year by default, which breaks tools/extra/parse_log.py and every log
  // parser written for Caffe.  --log_year_in_prefix=true still wins.
  FLAGS_log_year_in_prefix = false;
  ::gflags::ParseCommandLineFlags(pargc, pargv, true);
  ::google::InitGoogleLogging(*(pargv)[0]);
  FLAGS_logtostderr = 1;
  // A write past the file-size limit (ulimit -f) then fails with EFBIG and
  // becomes an error naming the file, as a full disk does, instead of
  // SIGXFSZ killing the tool mid-snapshot.  Python ignores it too.
  std::signal(SIGXFSZ, SIG_IGN);
}

void RethrowWithContext(const string& context, const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) throw std::bad_alloc();
  if (dynamic_cast<const InternalError*>(&e))
    throw InternalError(context + e.what());
  if (dynamic_cast<const BlobNotReadable*>(&e))
    throw BlobNotReadable(context + e.what());
  throw Error(context + e.what());
}

}  // namespace caffe
