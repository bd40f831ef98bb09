// cudnn_pool.hpp: the cuDNN engine for 2-D pooling (USE_CUDA builds).
// The pooling layer chooses it for AVE with `pooling_param { engine:
// CUDNN }` in GPU mode; MAX stays on the layer's kernels (below).
//
// Contract:
//  * Constructed from the layer's geometry for a whole batch; builds the
//    tensor and pooling descriptors.  Descriptor building needs no GPU, so
//    OutputDim -- the output cuDNN computes -- is tested on any machine.
//  * cuDNN rounds the output size down and pads symmetrically, Caffe rounds
//    up by default: the layer uses the engine only where Matches(), i.e.
//    where cuDNN's output size is the layer's.  There every window ends
//    inside H + pad, so cuDNN's average counting the padding divides by
//    the whole window, as Caffe's does.
//  * AVE only (CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING).  MAX is not
//    offered: cuDNN's MAX backward finds the maximum by comparing x with
//    y, so a layer run in place on the pooling's top (a ReLU, say) would
//    send the gradient astray; Caffe's own argmax mask does not depend on
//    y, which is why the layer, as BVLC Caffe's layer factory does, keeps
//    MAX on its own kernels.
//  * Backward takes x, y and dy (cuDNN's interface asks for all three),
//    which is why the layer declares that its backward reads its bottom and
//    top data under this engine.  Forward writes y, Backward writes (does
//    not add into) dx.
#ifndef CAFFE_UTIL_CUDNN_POOL_HPP_
#define CAFFE_UTIL_CUDNN_POOL_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

namespace caffe {

struct CudnnPoolShape {
  int num, channels, height, width;
  int out_height, out_width;
  int kernel_h, kernel_w, pad_h, pad_w, stride_h, stride_w;
};

template <typename Dtype>
class CudnnPool {
 public:
  explicit CudnnPool(const CudnnPoolShape& shape);
  ~CudnnPool();
  CudnnPool(const CudnnPool&) = delete;
  CudnnPool& operator=(const CudnnPool&) = delete;

  const CudnnPoolShape& shape() const { return shape_; }
  void OutputDim(int* n, int* c, int* h, int* w) const;
  // Whether cuDNN's output size is the one the shape asks for.
  bool Matches() const;

  void Forward(const Dtype* x, Dtype* y) const;
  void Backward(const Dtype* x, const Dtype* y, const Dtype* dy,
                Dtype* dx) const;

 private:
  CudnnPoolShape shape_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnPoolingDescriptor_t pool_desc_ = nullptr;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_POOL_HPP_
