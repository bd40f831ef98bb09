// The cuDNN sigmoid / tanh engine (util/cudnn_activation.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_activation.hpp"

#include "caffe/util/cudnn.hpp"

namespace caffe {

template <typename Dtype>
CudnnActivation<Dtype>::CudnnActivation(cudnnActivationMode_t mode, int count)
    : mode_(mode), count_(count) {
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
  CUDNN_CHECK(cudnnCreateActivationDescriptor(&act_));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(
      desc_, CUDNN_TENSOR_NCHW, CudnnType<Dtype>::value, 1, 1, 1, count));
  CUDNN_CHECK(
      cudnnSetActivationDescriptor(act_, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
}

template <typename Dtype>
CudnnActivation<Dtype>::~CudnnActivation() {
  if (act_) cudnnDestroyActivationDescriptor(act_);
  if (desc_) cudnnDestroyTensorDescriptor(desc_);
}

template <typename Dtype>
CudnnActivation<Dtype>* CudnnActivation<Dtype>::Find(
    std::shared_ptr<void>* slot, cudnnActivationMode_t mode, int count) {
  auto* engine = static_cast<CudnnActivation*>(slot->get());
  if (!engine || engine->mode() != mode || engine->count() != count) {
    auto made = std::make_shared<CudnnActivation>(mode, count);
    engine = made.get();
    *slot = made;
  }
  return engine;
}

template <typename Dtype>
void CudnnActivation<Dtype>::Forward(const Dtype* x, Dtype* y) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnActivationForward(CudnnHandle(), act_, &one, desc_, x, &zero,
                                     desc_, y));
}

template <typename Dtype>
void CudnnActivation<Dtype>::Backward(const Dtype* v, const Dtype* dy,
                                      Dtype* dx) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnActivationBackward(CudnnHandle(), act_, &one, desc_, v,
                                      desc_, dy, desc_, v, &zero, desc_, dx));
}

template class CudnnActivation<float>;
template class CudnnActivation<double>;

}  // namespace caffe

#endif  // USE_CUDA
