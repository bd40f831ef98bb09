// crop_kernels.hpp: the Crop layer's kernel body, written once and launched
// by crop_layer.cpp with ForEachOn on either device (crop_layer.cu compiles
// its GPU launches).
#ifndef CAFFE_CROP_KERNELS_HPP_
#define CAFFE_CROP_KERNELS_HPP_

#include "caffe/blob.hpp"
#include "caffe/util/elementwise.hpp"

namespace caffe {

// Copies one innermost row of the window per index, between the big
// (bottom[0]-shaped) and the small (top-shaped) buffer.  Shapes travel by
// value (a kernel argument), so the body needs no device allocation.
template <typename Dtype>
struct CropRows {
  Dtype* big;
  Dtype* small;
  bool to_small;
  int axes;  // >= 1
  int big_shape[kMaxBlobAxes];
  int small_shape[kMaxBlobAxes];
  int offsets[kMaxBlobAxes];
  CAFFE_KERNEL void operator()(long r) const {
    // r indexes the small blob's rows; split it into the outer axes'
    // indices, last axis fastest, and place the row in the big blob.
    long rest = r, big_offset = 0, stride = 1;
    for (int a = axes - 2; a >= 0; --a) {
      const long idx = rest % small_shape[a];
      rest /= small_shape[a];
      big_offset += (idx + offsets[a]) * stride;
      stride *= big_shape[a];
    }
    const int row = small_shape[axes - 1];
    const long big_start =
        big_offset * big_shape[axes - 1] + offsets[axes - 1];
    Dtype* b = big + big_start;
    Dtype* s = small + r * row;
    if (to_small) {
      for (int i = 0; i < row; ++i) s[i] = b[i];
    } else {
      for (int i = 0; i < row; ++i) b[i] = s[i];
    }
  }
};

}  // namespace caffe

#endif  // CAFFE_CROP_KERNELS_HPP_
