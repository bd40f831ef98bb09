// cudnn_activation.hpp: the cuDNN engine for the ReLU, sigmoid and tanh
// layers (USE_CUDA builds), chosen by `engine: CUDNN` in their parameters
// in GPU mode (ReLU only with negative_slope 0: cuDNN's is not leaky).
//
// Contract:
//  * The blob is one flat tensor of `count` elements (an element-wise
//    function does not care about axes).  Descriptor building needs no GPU.
//  * Backward takes one value tensor v and dy, and hands cuDNN v as both x
//    and y.  Sigmoid and tanh pass y: their derivatives (y (1 - y),
//    1 - y^2) are functions of y, which is what cuDNN computes from when a
//    layer runs in place (x is y there, as in BVLC Caffe's cuDNN layers).
//    ReLU passes x: the gradient passes where x > 0, which is where y > 0,
//    so either value gives the same mask.  So each layer reads what it
//    declares (sigmoid and tanh the top data, ReLU the bottom data), and
//    both passes may run in place.
//  * Forward writes y, Backward writes (does not add into) dx.
//  * Find(slot, ...) keeps one engine per layer in a type-erased slot (the
//    layers' headers carry no cuDNN type) and rebuilds it when the count
//    changes.
#ifndef CAFFE_UTIL_CUDNN_ACTIVATION_HPP_
#define CAFFE_UTIL_CUDNN_ACTIVATION_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

#include <memory>

namespace caffe {

template <typename Dtype>
class CudnnActivation {
 public:
  CudnnActivation(cudnnActivationMode_t mode, int count);
  ~CudnnActivation();
  CudnnActivation(const CudnnActivation&) = delete;
  CudnnActivation& operator=(const CudnnActivation&) = delete;

  static CudnnActivation* Find(std::shared_ptr<void>* slot,
                               cudnnActivationMode_t mode, int count);

  cudnnActivationMode_t mode() const { return mode_; }
  int count() const { return count_; }

  void Forward(const Dtype* x, Dtype* y) const;
  void Backward(const Dtype* v, const Dtype* dy, Dtype* dx) const;

 private:
  cudnnActivationMode_t mode_;
  int count_;
  cudnnTensorDescriptor_t desc_ = nullptr;
  cudnnActivationDescriptor_t act_ = nullptr;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_ACTIVATION_HPP_
