// The cuDNN LRN engine (util/cudnn_lrn.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_lrn.hpp"

#include "caffe/util/cudnn.hpp"

namespace caffe {

template <typename Dtype>
bool CudnnLrn<Dtype>::Supports(int size, double beta, double k) {
  return size >= CUDNN_LRN_MIN_N && size <= CUDNN_LRN_MAX_N &&
         beta >= CUDNN_LRN_MIN_BETA && k >= CUDNN_LRN_MIN_K;
}

template <typename Dtype>
CudnnLrn<Dtype>::CudnnLrn(const CudnnLrnShape& s) : shape_(s) {
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
  CUDNN_CHECK(cudnnCreateLRNDescriptor(&lrn_));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW,
                                         CudnnType<Dtype>::value, s.num,
                                         s.channels, s.height, s.width));
  CUDNN_CHECK(cudnnSetLRNDescriptor(lrn_, static_cast<unsigned>(s.size),
                                    s.alpha, s.beta, s.k));
}

template <typename Dtype>
CudnnLrn<Dtype>::~CudnnLrn() {
  if (lrn_) cudnnDestroyLRNDescriptor(lrn_);
  if (desc_) cudnnDestroyTensorDescriptor(desc_);
}

template <typename Dtype>
void CudnnLrn<Dtype>::Parameters(unsigned* n, double* alpha, double* beta,
                                 double* k) const {
  CUDNN_CHECK(cudnnGetLRNDescriptor(lrn_, n, alpha, beta, k));
}

template <typename Dtype>
void CudnnLrn<Dtype>::Forward(const Dtype* x, Dtype* y) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnLRNCrossChannelForward(CudnnHandle(), lrn_,
                                          CUDNN_LRN_CROSS_CHANNEL_DIM1, &one,
                                          desc_, x, &zero, desc_, y));
}

template <typename Dtype>
void CudnnLrn<Dtype>::Backward(const Dtype* x, const Dtype* y, const Dtype* dy,
                               Dtype* dx) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnLRNCrossChannelBackward(
      CudnnHandle(), lrn_, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, desc_, y, desc_,
      dy, desc_, x, &zero, desc_, dx));
}

template class CudnnLrn<float>;
template class CudnnLrn<double>;

}  // namespace caffe

#endif  // USE_CUDA
