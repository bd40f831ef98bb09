#include "caffe/common.hpp"

#include <gflags/gflags.h>

#include <chrono>
#include <csignal>

namespace caffe {

Caffe& Caffe::Get() {
  thread_local Caffe instance;
  return instance;
}

Caffe::Caffe() : mode_(CPU), solver_count_(1), solver_rank_(0) {
  // Unseeded runs differ from run to run, as in Caffe (random_seed: -1).
  rng_.seed(static_cast<unsigned int>(
      std::chrono::high_resolution_clock::now().time_since_epoch().count()));
}

void Caffe::set_random_seed(unsigned int seed) { Get().rng_.seed(seed); }

void Caffe::SetDevice(int device_id) {
  (void)device_id;
  NO_GPU;
}

void Caffe::DeviceQuery() {
  LOG(INFO) << "This LeanCaffe build has no CUDA support; no GPU to query.";
}

bool Caffe::CheckDevice(int device_id) {
  (void)device_id;
  return false;
}

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

}  // namespace caffe
