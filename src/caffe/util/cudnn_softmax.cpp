// The cuDNN softmax engine (util/cudnn_softmax.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_softmax.hpp"

#include "caffe/util/cudnn.hpp"

namespace caffe {

template <typename Dtype>
CudnnSoftmax<Dtype>::CudnnSoftmax(int outer, int channels, int inner)
    : outer_(outer), channels_(channels), inner_(inner) {
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW,
                                         CudnnType<Dtype>::value, outer,
                                         channels, inner, 1));
}

template <typename Dtype>
CudnnSoftmax<Dtype>::~CudnnSoftmax() {
  if (desc_) cudnnDestroyTensorDescriptor(desc_);
}

template <typename Dtype>
void CudnnSoftmax<Dtype>::Dims(int* n, int* c, int* h, int* w) const {
  cudnnDataType_t type;
  int ns, cs, hs, ws;
  CUDNN_CHECK(
      cudnnGetTensor4dDescriptor(desc_, &type, n, c, h, w, &ns, &cs, &hs, &ws));
}

template <typename Dtype>
void CudnnSoftmax<Dtype>::Forward(const Dtype* x, Dtype* y) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnSoftmaxForward(CudnnHandle(), CUDNN_SOFTMAX_ACCURATE,
                                  CUDNN_SOFTMAX_MODE_CHANNEL, &one, desc_, x,
                                  &zero, desc_, y));
}

template <typename Dtype>
void CudnnSoftmax<Dtype>::Backward(const Dtype* y, const Dtype* dy,
                                   Dtype* dx) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnSoftmaxBackward(CudnnHandle(), CUDNN_SOFTMAX_ACCURATE,
                                   CUDNN_SOFTMAX_MODE_CHANNEL, &one, desc_, y,
                                   desc_, dy, &zero, desc_, dx));
}

template class CudnnSoftmax<float>;
template class CudnnSoftmax<double>;

}  // namespace caffe

#endif  // USE_CUDA
