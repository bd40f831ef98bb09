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
//    runs fn(0, n) inline.  A body must not allocate either: scratch it
//    needs comes from the caller, sized for ParallelParts(n, grain) parts
//    and indexed by the part ParallelForParts passes (an allocation failure
//    inside an OpenMP region would terminate the process).
//  * InParallelBody() is true on any thread while it runs a ParallelFor
//    body; the tests use it to prove that no body allocates.
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
// The number of ranges ParallelFor(n, grain, ...) splits [0, n) into.
int ParallelParts(long n, long grain);
// ParallelFor whose body also gets its range's index, in
// [0, ParallelParts(n, grain)).
void ParallelForParts(long n, long grain,
                      const std::function<void(int, long, long)>& fn);
bool InParallelBody();
int ParallelThreads();
void SetParallelThreads(int n);

void* SharedWorkspace(size_t bytes);
size_t SharedWorkspaceBytes();
void ReleaseSharedWorkspace();

}  // namespace caffe

#endif  // CAFFE_UTIL_PARALLEL_HPP_
