// gradient_buckets.hpp: which parameter gradients are summed across ranks
// together, and when each group may start (a pure planning module).
//
// Contract:
//  * Input: the gradients to reduce, in the order they are reduced (the
//    reverse of the net's learnable parameter order, so that the last
//    layers' gradients, ready first in backward, go first), each with its
//    element count and `ready_layer`: the lowest layer id that writes the
//    gradient (a shared parameter is complete only after its first user's
//    backward); -1 when no layer that runs backward writes it.
//  * Output: consecutive groups of at most `bucket_bytes` bytes (a single
//    gradient larger than that is a group of its own).  A bucket's
//    ready_layer is the lowest of its members'.  Buckets start in order:
//    after the backward of layer L, every not yet started bucket whose
//    ready_layer >= L, up to the first one that is not ready, may start.
#ifndef CAFFE_PARALLEL_GRADIENT_BUCKETS_HPP_
#define CAFFE_PARALLEL_GRADIENT_BUCKETS_HPP_

#include <cstddef>
#include <vector>

namespace caffe {

struct GradientToReduce {
  int param_id;     // index into Net::learnable_params()
  size_t count;     // elements
  int ready_layer;  // see above
};

struct GradientBucket {
  std::vector<int> members;  // indices into the input vector
  size_t count = 0;          // elements, all members
  int ready_layer = 0;
};

std::vector<GradientBucket> PlanGradientBuckets(
    const std::vector<GradientToReduce>& gradients, size_t element_bytes,
    size_t bucket_bytes);

}  // namespace caffe

#endif  // CAFFE_PARALLEL_GRADIENT_BUCKETS_HPP_
