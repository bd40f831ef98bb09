// The cuDNN convolution engine (util/cudnn_conv.hpp) and cuDNN's handle
// and errors (util/cudnn.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_conv.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "caffe/util/conv_algorithm.hpp"
#include "caffe/util/cuda.hpp"
#include "caffe/util/cudnn.hpp"

namespace caffe {

std::string CudnnErrorMessage(const char* call, cudnnStatus_t status) {
  std::ostringstream s;
  s << call << " failed: " << cudnnGetErrorString(status)
    << " (cuDNN status " << static_cast<int>(status) << ")";
  return s.str();
}

cudnnHandle_t CudnnHandle() {
  struct Handle {
    int device = -1;
    cudnnHandle_t handle = nullptr;
    ~Handle() {
      if (handle) cudnnDestroy(handle);
    }
  };
  thread_local Handle h;
  const int device = CurrentDevice("cuDNN");
  if (h.handle && h.device != device) {
    cudnnDestroy(h.handle);
    h.handle = nullptr;
  }
  if (!h.handle) {
    CUDNN_CHECK(cudnnCreate(&h.handle));
    h.device = device;
  }
  return h.handle;
}

namespace {

// Tensor-core math (TF32 for float) would leave the stated CPU tolerance.
template <typename Dtype>
bool PlainMath(cudnnMathType_t m) {
  if (sizeof(Dtype) == sizeof(float)) return m == CUDNN_FMA_MATH;
  return m == CUDNN_DEFAULT_MATH || m == CUDNN_FMA_MATH;
}

template <typename Dtype, typename Perf>
std::vector<ConvAlgorithmCandidate> Candidates(const Perf* perf, int n) {
  std::vector<ConvAlgorithmCandidate> out(n);
  for (int i = 0; i < n; ++i) {
    out[i].algo = static_cast<int>(perf[i].algo);
    out[i].ok = perf[i].status == CUDNN_STATUS_SUCCESS &&
                PlainMath<Dtype>(perf[i].mathType);
    out[i].deterministic = perf[i].determinism == CUDNN_DETERMINISTIC;
    out[i].workspace_bytes = perf[i].memory;
  }
  return out;
}

}  // namespace

template <typename Dtype>
CudnnConv<Dtype>::CudnnConv(const CudnnConvShape& s) : shape_(s) {
  const cudnnDataType_t type = CudnnType<Dtype>::value;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_desc_));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_desc_));
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_desc_));
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv_desc_));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, type,
                                         s.num, s.channels, s.height,
                                         s.width));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, type,
                                         s.num, s.out_channels, s.out_height,
                                         s.out_width));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_desc_, type, CUDNN_TENSOR_NCHW,
                                         s.out_channels, s.channels / s.group,
                                         s.kernel_h, s.kernel_w));
  // Caffe's convolution is a cross-correlation.
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
      conv_desc_, s.pad_h, s.pad_w, s.stride_h, s.stride_w, s.dilation_h,
      s.dilation_w, CUDNN_CROSS_CORRELATION, type));
  CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv_desc_, s.group));
  CUDNN_CHECK(cudnnSetConvolutionMathType(
      conv_desc_,
      sizeof(Dtype) == sizeof(float) ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH));
}

template <typename Dtype>
CudnnConv<Dtype>::~CudnnConv() {
  if (conv_desc_) cudnnDestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_) cudnnDestroyFilterDescriptor(w_desc_);
  if (y_desc_) cudnnDestroyTensorDescriptor(y_desc_);
  if (x_desc_) cudnnDestroyTensorDescriptor(x_desc_);
}

template <typename Dtype>
void CudnnConv<Dtype>::OutputDim(int* n, int* c, int* h, int* w) const {
  CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_,
                                                    w_desc_, n, c, h, w));
}

template <typename Dtype>
bool CudnnConv<Dtype>::ChooseAlgorithms(size_t limit) {
  cudnnHandle_t handle = CudnnHandle();
  const int kMax = 16;
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[kMax];
  CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      handle, x_desc_, w_desc_, conv_desc_, y_desc_, kMax, &returned, fwd));
  const int f = ChooseAlgorithm(Candidates<Dtype>(fwd, returned), limit, true);
  cudnnConvolutionBwdDataAlgoPerf_t bwd_data[kMax];
  CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      handle, w_desc_, y_desc_, conv_desc_, x_desc_, kMax, &returned,
      bwd_data));
  const int d =
      ChooseAlgorithm(Candidates<Dtype>(bwd_data, returned), limit, true);
  cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[kMax];
  CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      handle, x_desc_, y_desc_, conv_desc_, w_desc_, kMax, &returned,
      bwd_filter));
  const int w =
      ChooseAlgorithm(Candidates<Dtype>(bwd_filter, returned), limit, true);
  if (f < 0 || d < 0 || w < 0) return false;
  forward_algo_ = fwd[f].algo;
  data_algo_ = bwd_data[d].algo;
  filter_algo_ = bwd_filter[w].algo;
  workspace_bytes_ =
      std::max({fwd[f].memory, bwd_data[d].memory, bwd_filter[w].memory});
  return true;
}

template <typename Dtype>
void CudnnConv<Dtype>::Forward(const Dtype* x, const Dtype* w, Dtype* y,
                               void* workspace) {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnConvolutionForward(
      CudnnHandle(), &one, x_desc_, x, w_desc_, w, conv_desc_, forward_algo_,
      workspace, workspace_bytes_, &zero, y_desc_, y));
}

template <typename Dtype>
void CudnnConv<Dtype>::BackwardData(const Dtype* w, const Dtype* dy,
                                    Dtype* dx, void* workspace) {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnConvolutionBackwardData(
      CudnnHandle(), &one, w_desc_, w, y_desc_, dy, conv_desc_, data_algo_,
      workspace, workspace_bytes_, &zero, x_desc_, dx));
}

template <typename Dtype>
void CudnnConv<Dtype>::BackwardFilter(const Dtype* x, const Dtype* dy,
                                      Dtype* dw, void* workspace) {
  const Dtype one = 1;
  CUDNN_CHECK(cudnnConvolutionBackwardFilter(
      CudnnHandle(), &one, x_desc_, x, y_desc_, dy, conv_desc_, filter_algo_,
      workspace, workspace_bytes_, &one, w_desc_, dw));
}

template class CudnnConv<float>;
template class CudnnConv<double>;

}  // namespace caffe

#endif  // USE_CUDA
