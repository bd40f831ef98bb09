#include "caffe/parallel/gradient_buckets.hpp"

#include <algorithm>

#include "caffe/common.hpp"

namespace caffe {

std::vector<GradientBucket> PlanGradientBuckets(
    const std::vector<GradientToReduce>& gradients, size_t element_bytes,
    size_t bucket_bytes) {
  CAFFE_INTERNAL_CHECK(element_bytes > 0);
  std::vector<GradientBucket> buckets;
  for (size_t i = 0; i < gradients.size(); ++i) {
    const GradientToReduce& g = gradients[i];
    const size_t bytes = g.count * element_bytes;
    const bool fits = !buckets.empty() && !buckets.back().members.empty() &&
                      (buckets.back().count * element_bytes + bytes <=
                       bucket_bytes);
    if (!fits) {
      buckets.emplace_back();
      buckets.back().ready_layer = g.ready_layer;
    }
    GradientBucket& b = buckets.back();
    b.members.push_back(static_cast<int>(i));
    b.count += g.count;
    b.ready_layer = std::min(b.ready_layer, g.ready_layer);
  }
  return buckets;
}

}  // namespace caffe
