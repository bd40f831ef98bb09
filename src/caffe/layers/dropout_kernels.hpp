// dropout_kernels.hpp: the Dropout layer's kernel bodies, written once and
// run by its Forward_cpu/Backward_cpu (ForEach) and its .cu (ForEachGpu).
#ifndef CAFFE_DROPOUT_KERNELS_HPP_
#define CAFFE_DROPOUT_KERNELS_HPP_

#include <algorithm>
#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

namespace {

// out = in * mask * scale (forward on data, backward on diffs).
template <typename Dtype>
struct DropoutApply {
  const Dtype* in;
  const unsigned int* mask;
  Dtype* out;
  Dtype scale;
  CAFFE_KERNEL void operator()(long i) const {
    out[i] = in[i] * mask[i] * scale;
  }
};

}  // namespace

}  // namespace caffe

#endif  // CAFFE_DROPOUT_KERNELS_HPP_
