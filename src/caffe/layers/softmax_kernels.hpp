// softmax_kernels.hpp: the Softmax layer's kernel bodies, written once and
// run by its Forward_cpu/Backward_cpu (ForEach) and its .cu (ForEachGpu).
//
// One index per position outside the class axis: p = i * inner + k for
// outer slice i and inner position k.  Each body walks the `channels`
// values of its position in class order, so every position's max, sums
// and results are those of a serial loop (bit-identical for any thread
// count), and no two indices touch the same element: in place is safe.
#ifndef CAFFE_SOFTMAX_KERNELS_HPP_
#define CAFFE_SOFTMAX_KERNELS_HPP_

#include <cmath>

#include "caffe/util/elementwise.hpp"

namespace caffe {

// y = exp(x - max_c x) / sum_c exp(x - max_c x) along the class axis.
template <typename Dtype>
struct SoftmaxForward {
  const Dtype* x;
  Dtype* y;
  int channels, inner;
  CAFFE_KERNEL void operator()(long p) const {
    const long base = (p / inner) * channels * inner + p % inner;
    Dtype top = x[base];
    for (int c = 1; c < channels; ++c) {
      const Dtype v = x[base + static_cast<long>(c) * inner];
      top = v > top ? v : top;
    }
    Dtype sum = 0;
    for (int c = 0; c < channels; ++c) {
      const long at = base + static_cast<long>(c) * inner;
      y[at] = std::exp(x[at] - top);
      sum += y[at];
    }
    for (int c = 0; c < channels; ++c)
      y[base + static_cast<long>(c) * inner] /= sum;
  }
};

// dx = y * (dy - <dy, y>), the dot product along the class axis.
template <typename Dtype>
struct SoftmaxBackward {
  const Dtype* y;
  const Dtype* dy;
  Dtype* dx;
  int channels, inner;
  CAFFE_KERNEL void operator()(long p) const {
    const long base = (p / inner) * channels * inner + p % inner;
    Dtype dot = 0;
    for (int c = 0; c < channels; ++c) {
      const long at = base + static_cast<long>(c) * inner;
      dot += dy[at] * y[at];
    }
    for (int c = 0; c < channels; ++c) {
      const long at = base + static_cast<long>(c) * inner;
      dx[at] = y[at] * (dy[at] - dot);
    }
  }
};

}  // namespace caffe

#endif  // CAFFE_SOFTMAX_KERNELS_HPP_
