#include "caffe/util/elementwise.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace caffe {

namespace {

bool CpuSupportsAvx2() {
#ifdef CAFFE_AVX2_LOOPS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}

std::atomic<bool>& Avx2Loops() {
  static std::atomic<bool> on([] {
    const char* env = std::getenv("LEANCAFFE_CPU_VECTOR");
    return CpuSupportsAvx2() && !(env && std::strcmp(env, "baseline") == 0);
  }());
  return on;
}

}  // namespace

bool CpuHasAvx2Loops() {
  return Avx2Loops().load(std::memory_order_relaxed);
}

void SetAvx2Loops(bool on) { Avx2Loops().store(on && CpuSupportsAvx2()); }

}  // namespace caffe
