#include "caffe/util/parallel.hpp"

#include "caffe/syncedmem.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace caffe {

int ParallelThreads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void SetParallelThreads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n < 1 ? 1 : n);
#else
  (void)n;
#endif
}

namespace {
thread_local bool in_parallel_body = false;

// Runs one range with the flag set (and restored: bodies may nest).
template <typename Fn>
void RunBody(const Fn& fn, int part, long begin, long end) {
  const bool outer = in_parallel_body;
  in_parallel_body = true;
  fn(part, begin, end);
  in_parallel_body = outer;
}
}  // namespace

bool InParallelBody() { return in_parallel_body; }

int ParallelParts(long n, long grain) {
  if (n <= 0) return 0;
  grain = std::max(1L, grain);
  const long max_parts = std::max(1L, n / grain);
  return static_cast<int>(std::min<long>(ParallelThreads(), max_parts));
}

void ParallelForParts(long n, long grain,
                      const std::function<void(int, long, long)>& fn) {
  const int threads = ParallelParts(n, grain);
  if (threads <= 0) return;
  if (threads == 1) {
    RunBody(fn, 0, 0, n);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    const long t = omp_get_thread_num();
    const long parts = omp_get_num_threads();
    // Contiguous, balanced split: the first n % parts ranges get one more.
    const long base = n / parts, extra = n % parts;
    const long begin = t * base + std::min(t, extra);
    const long end = begin + base + (t < extra ? 1 : 0);
    if (begin < end) RunBody(fn, static_cast<int>(t), begin, end);
  }
#else
  RunBody(fn, 0, 0, n);
#endif
}

void ParallelFor(long n, long grain,
                 const std::function<void(long, long)>& fn) {
  ParallelForParts(n, grain,
                   [&fn](int, long begin, long end) { fn(begin, end); });
}

namespace {

// Host bytes through CaffeMallocHost, so the workspace counts in
// HostBytesInUse/HostBytesPeak and in the memory limit like every other
// buffer of the net.
struct HostFree {
  void operator()(void* p) const { CaffeFreeHost(p); }
};

struct Workspace {
  std::unique_ptr<void, HostFree> data;
  size_t bytes = 0;
};

Workspace& ThreadWorkspace() {
  static thread_local Workspace workspace;
  return workspace;
}

}  // namespace

void* SharedWorkspace(size_t bytes) {
  Workspace& ws = ThreadWorkspace();
  if (ws.bytes < bytes || !ws.data) {
    // Free first so the peak is not old + new; bytes is cleared so a failed
    // allocation cannot leave a stale size behind.
    ws.data.reset();
    ws.bytes = 0;
    const size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
    void* p = nullptr;
    CaffeMallocHost(&p, rounded);  // 64-byte aligned; throws when refused
    ws.data.reset(p);
    ws.bytes = bytes;
  }
  return ws.data.get();
}

size_t SharedWorkspaceBytes() { return ThreadWorkspace().bytes; }

void ReleaseSharedWorkspace() {
  Workspace& ws = ThreadWorkspace();
  ws.data.reset();
  ws.bytes = 0;
}

}  // namespace caffe
