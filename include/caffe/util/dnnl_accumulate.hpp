// dnnl_accumulate.hpp: adds a tensor held in one of oneDNN's blocked
// layouts into the same tensor held in Caffe's plain layout (user +=
// result), without oneDNN's reorder.
//
// Why: a convolution's weight gradient comes out of oneDNN blocked
// (e.g. ABcd16b16a) and Caffe accumulates it into the parameter's diff.
// oneDNN 2.6 runs that reorder-with-sum through its generic kernel, which
// on ResNet-50 took 7 ms for one 2048x1024 1x1 weight (about 27 ms of a
// 1.2 s training step).  The offset of an element in any blocked layout is
// a sum of one term per dimension (its block's stride plus its place in
// each inner block), so a table per dimension turns the conversion into
// table lookups and one add per element.
//
// Contract:
//  * Make(from, to) returns an accumulator when both descriptors are
//    f32, of format kind blocked, with equal logical dims, no extra
//    (compensation) data and every offset inside the tensor's extent;
//    otherwise nullptr, and the caller keeps oneDNN's reorder.
//  * Run(from, to) computes to[e] += from[e] for every logical element e,
//    one IEEE add each (the same bits as oneDNN's reorder with a sum
//    post-op of scale 1), in parallel over the outermost dimension, so
//    the result does not depend on the thread count.  from and to must
//    not overlap.
#ifndef CAFFE_UTIL_DNNL_ACCUMULATE_HPP_
#define CAFFE_UTIL_DNNL_ACCUMULATE_HPP_

#ifdef USE_DNNL

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <vector>

namespace caffe {

class BlockedAccumulate {
 public:
  static std::unique_ptr<BlockedAccumulate> Make(
      const dnnl::memory::desc& from, const dnnl::memory::desc& to);
  void Run(const float* from, float* to) const;

 private:
  BlockedAccumulate() = default;
  // The dimensions iterated (those longer than 1), outermost first, and
  // per dimension the element offset of each index in each layout.
  std::vector<long> sizes_;
  std::vector<std::vector<long>> from_offsets_, to_offsets_;
  long from_base_ = 0, to_base_ = 0;
};

}  // namespace caffe

#endif  // USE_DNNL
#endif  // CAFFE_UTIL_DNNL_ACCUMULATE_HPP_
