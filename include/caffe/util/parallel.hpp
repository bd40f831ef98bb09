// parallel.hpp: CPU parallel loops and the shared scratch workspace.
//
// Contract:
//  * ParallelFor(n, grain, fn) calls fn(begin, end) on disjoint contiguous
//    ranges covering [0, n), at most one range per thread of the OpenMP team
//    (OMP_NUM_THREADS; the team oneDNN uses too, so nothing is
//    oversubscribed).  Ranges are a fixed function of n and the thread
//    count, so code whose elements are independent gives bit-identical
//    results run to run.  Ranges hold at least `grain` elements (work below
//    that runs inline on the caller); fn must not throw.  Without OpenMP it
//    runs fn(0, n) inline.
//  * ParallelThreads(): the team size ParallelFor (and oneDNN) uses on the
//    calling thread; SetParallelThreads(n) changes it (omp_set_num_threads)
//    and is a no-op without OpenMP.
//  * SharedWorkspace(bytes): the calling thread's scratch buffer, 64-byte
//    aligned, grown (never shrunk) to at least bytes; contents are garbage
//    and valid only until the next call.  Layers that need scratch only
//    within one Forward or Backward (im2col columns, oneDNN scratchpads and
//    reorders) share it, so its size is the largest single need, not a sum.
//    SharedWorkspaceBytes() is its current size; ReleaseSharedWorkspace()
//    frees it.
#ifndef CAFFE_UTIL_PARALLEL_HPP_
#define CAFFE_UTIL_PARALLEL_HPP_

#include <cstddef>
#include <functional>

namespace caffe {

void ParallelFor(long n, long grain, const std::function<void(long, long)>& fn);
int ParallelThreads();
void SetParallelThreads(int n);

void* SharedWorkspace(size_t bytes);
size_t SharedWorkspaceBytes();
void ReleaseSharedWorkspace();

}  // namespace caffe

#endif  // CAFFE_UTIL_PARALLEL_HPP_
