// The cuDNN pooling engine (util/cudnn_pool.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_pool.hpp"

#include "caffe/util/cudnn.hpp"

namespace caffe {

template <typename Dtype>
CudnnPool<Dtype>::CudnnPool(const CudnnPoolShape& s) : shape_(s) {
  const cudnnDataType_t type = CudnnType<Dtype>::value;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_desc_));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_desc_));
  CUDNN_CHECK(cudnnCreatePoolingDescriptor(&pool_desc_));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, type,
                                         s.num, s.channels, s.height, s.width));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, type,
                                         s.num, s.channels, s.out_height,
                                         s.out_width));
  // Caffe's AVE divides by the window counted with the padding.
  CUDNN_CHECK(cudnnSetPooling2dDescriptor(
      pool_desc_, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
      CUDNN_NOT_PROPAGATE_NAN, s.kernel_h, s.kernel_w, s.pad_h, s.pad_w,
      s.stride_h, s.stride_w));
}

template <typename Dtype>
CudnnPool<Dtype>::~CudnnPool() {
  if (pool_desc_) cudnnDestroyPoolingDescriptor(pool_desc_);
  if (y_desc_) cudnnDestroyTensorDescriptor(y_desc_);
  if (x_desc_) cudnnDestroyTensorDescriptor(x_desc_);
}

template <typename Dtype>
void CudnnPool<Dtype>::OutputDim(int* n, int* c, int* h, int* w) const {
  CUDNN_CHECK(
      cudnnGetPooling2dForwardOutputDim(pool_desc_, x_desc_, n, c, h, w));
}

template <typename Dtype>
bool CudnnPool<Dtype>::Matches() const {
  int n = 0, c = 0, h = 0, w = 0;
  OutputDim(&n, &c, &h, &w);
  return n == shape_.num && c == shape_.channels && h == shape_.out_height &&
         w == shape_.out_width;
}

template <typename Dtype>
void CudnnPool<Dtype>::Forward(const Dtype* x, Dtype* y) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnPoolingForward(CudnnHandle(), pool_desc_, &one, x_desc_, x,
                                  &zero, y_desc_, y));
}

template <typename Dtype>
void CudnnPool<Dtype>::Backward(const Dtype* x, const Dtype* y, const Dtype* dy,
                                Dtype* dx) const {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnPoolingBackward(CudnnHandle(), pool_desc_, &one, y_desc_, y,
                                   y_desc_, dy, x_desc_, x, &zero, x_desc_,
                                   dx));
}

template class CudnnPool<float>;
template class CudnnPool<double>;

}  // namespace caffe

#endif  // USE_CUDA
