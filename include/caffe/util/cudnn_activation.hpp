// cudnn_activation.hpp: the cuDNN engine for the sigmoid and tanh layers
// (USE_CUDA builds), chosen by `sigmoid_param { engine: CUDNN }` or
// `tanh_param { engine: CUDNN }` in GPU mode.
//
// Contract:
//  * The blob is one flat tensor of `count` elements (an element-wise
//    function does not care about axes).  Descriptor building needs no GPU.
//  * Backward takes y and dy and hands cuDNN y in the place of x: the
//    derivatives (y (1 - y), 1 - y^2) are functions of y, and that is what
//    cuDNN computes from when a layer runs in place (x is y there, as in
//    BVLC Caffe's cuDNN layers).  So the engine reads what the layers
//    declare, the top data only, and both passes may run in place.
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
  void Backward(const Dtype* y, const Dtype* dy, Dtype* dx) const;

 private:
  cudnnActivationMode_t mode_;
  int count_;
  cudnnTensorDescriptor_t desc_ = nullptr;
  cudnnActivationDescriptor_t act_ = nullptr;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_ACTIVATION_HPP_
