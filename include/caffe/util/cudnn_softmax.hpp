// cudnn_softmax.hpp: the cuDNN engine for softmax along one axis (USE_CUDA
// builds), chosen by `softmax_param { engine: CUDNN }` in GPU mode.
//
// Contract:
//  * A blob is outer x channels x inner around the softmax axis; cuDNN
//    sees it as an NCHW tensor (outer, channels, inner, 1) and normalizes
//    over C (CUDNN_SOFTMAX_MODE_CHANNEL), with the maximum subtracted first
//    (CUDNN_SOFTMAX_ACCURATE) as Caffe's kernels do.  Descriptor building
//    needs no GPU.
//  * Backward reads y and dy only, the reads Caffe's softmax declares, so
//    the engine changes no memory contract; both passes may run in place.
//  * Forward writes y, Backward writes (does not add into) dx.
#ifndef CAFFE_UTIL_CUDNN_SOFTMAX_HPP_
#define CAFFE_UTIL_CUDNN_SOFTMAX_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

namespace caffe {

template <typename Dtype>
class CudnnSoftmax {
 public:
  CudnnSoftmax(int outer, int channels, int inner);
  ~CudnnSoftmax();
  CudnnSoftmax(const CudnnSoftmax&) = delete;
  CudnnSoftmax& operator=(const CudnnSoftmax&) = delete;

  bool Fits(int outer, int channels, int inner) const {
    return outer == outer_ && channels == channels_ && inner == inner_;
  }
  // The tensor cuDNN was given: n, c, h, w.
  void Dims(int* n, int* c, int* h, int* w) const;

  void Forward(const Dtype* x, Dtype* y) const;
  void Backward(const Dtype* y, const Dtype* dy, Dtype* dx) const;

 private:
  int outer_, channels_, inner_;
  cudnnTensorDescriptor_t desc_ = nullptr;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_SOFTMAX_HPP_
