#include "caffe/util/elementwise.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace caffe {

namespace {

CpuVector CpuBest() {
#ifdef CAFFE_WIDE_LOOPS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
    return CpuVector::kAvx512;
  if (__builtin_cpu_supports("avx2")) return CpuVector::kAvx2;
#endif
  return CpuVector::kBaseline;
}

CpuVector Capped(CpuVector cap) {
  static const CpuVector best = CpuBest();
  return static_cast<int>(cap) < static_cast<int>(best) ? cap : best;
}

std::atomic<int>& Loops() {
  static std::atomic<int> loops([] {
    const char* env = std::getenv("LEANCAFFE_CPU_VECTOR");
    CpuVector cap = CpuVector::kAvx512;
    if (env && std::strcmp(env, "baseline") == 0) cap = CpuVector::kBaseline;
    if (env && std::strcmp(env, "avx2") == 0) cap = CpuVector::kAvx2;
    return static_cast<int>(Capped(cap));
  }());
  return loops;
}

}  // namespace

CpuVector CpuVectorLoops() {
  return static_cast<CpuVector>(Loops().load(std::memory_order_relaxed));
}

void SetCpuVectorLoops(CpuVector cap) {
  Loops().store(static_cast<int>(Capped(cap)));
}

}  // namespace caffe
