// cudnn_lrn.hpp: the cuDNN engine for local response normalization across
// channels (USE_CUDA builds), chosen by `lrn_param { engine: CUDNN }` in
// GPU mode.
//
// Contract:
//  * cuDNN computes y = x (k + alpha / n * sum of x^2 over the n channels
//    centred on the element)^-beta, dividing alpha by n itself, which is
//    Caffe's ACROSS_CHANNELS formula with the same parameters.  It takes
//    n in [1, 16], k >= 1e-5 and beta >= 0.01 (CUDNN_LRN_MIN_N and the
//    like); Supports() says whether a layer's parameters are in range, and
//    the layer keeps its own kernels when they are not.  WITHIN_CHANNEL
//    stays on the layer's kernels (cuDNN's divisive normalization is a
//    different formula).  Descriptor building needs no GPU.
//  * Backward takes x, y and dy and keeps nothing from forward, where
//    Caffe's kernels keep the scale instead of y: under this engine the
//    layer declares that backward reads its bottom and top data.
//  * Forward writes y, Backward writes (does not add into) dx.
#ifndef CAFFE_UTIL_CUDNN_LRN_HPP_
#define CAFFE_UTIL_CUDNN_LRN_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

namespace caffe {

struct CudnnLrnShape {
  int num, channels, height, width;
  int size;                  // local_size
  double alpha, beta, k;
};

template <typename Dtype>
class CudnnLrn {
 public:
  // Whether cuDNN takes these parameters.
  static bool Supports(int size, double beta, double k);

  explicit CudnnLrn(const CudnnLrnShape& shape);
  ~CudnnLrn();
  CudnnLrn(const CudnnLrn&) = delete;
  CudnnLrn& operator=(const CudnnLrn&) = delete;

  const CudnnLrnShape& shape() const { return shape_; }
  // The descriptor's parameters as cuDNN holds them.
  void Parameters(unsigned* n, double* alpha, double* beta, double* k) const;

  void Forward(const Dtype* x, Dtype* y) const;
  void Backward(const Dtype* x, const Dtype* y, const Dtype* dy,
                Dtype* dx) const;

 private:
  CudnnLrnShape shape_;
  cudnnTensorDescriptor_t desc_ = nullptr;
  cudnnLRNDescriptor_t lrn_ = nullptr;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_LRN_HPP_
