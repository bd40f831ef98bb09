// The cuDNN convolution engine (util/cudnn_conv.hpp) and cuDNN's handle
// and errors (util/cudnn.hpp).
#ifdef USE_CUDA

#include "caffe/util/cudnn_conv.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "caffe/util/conv_algorithm.hpp"
#include "caffe/util/cuda.hpp"
#include "caffe/util/cudnn.hpp"
#include "caffe/util/gpu_math_options.hpp"

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

// Tensor-core math (TF32 for float) leaves the stated CPU tolerance, so it
// is a candidate only where the user allowed TF32.  Conversion to half
// precision is never one.
template <typename Dtype>
bool PlainMath(cudnnMathType_t m) {
  if (sizeof(Dtype) == sizeof(float)) return m == CUDNN_FMA_MATH;
  return m == CUDNN_DEFAULT_MATH || m == CUDNN_FMA_MATH;
}

template <typename Dtype, typename Perf>
std::vector<ConvAlgorithmCandidate> Candidates(const std::vector<Perf>& perf) {
  std::vector<ConvAlgorithmCandidate> out(perf.size());
  for (size_t i = 0; i < perf.size(); ++i) {
    out[i].algo = static_cast<int>(perf[i].algo);
    out[i].ok = perf[i].status == CUDNN_STATUS_SUCCESS &&
                perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    out[i].tensor_core = !PlainMath<Dtype>(perf[i].mathType);
    out[i].deterministic = perf[i].determinism == CUDNN_DETERMINISTIC;
    out[i].workspace_bytes = perf[i].memory;
  }
  return out;
}

// What cuDNN ranked for one convolution, best first, in all three
// directions: the heuristic's ranking or Find's measured one.
struct Rankings {
  std::vector<cudnnConvolutionFwdAlgoPerf_t> forward;
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data;
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter;
};

// cuDNN's heuristic ranking (Get*_v7) or its measured one (Find*, which
// runs every algorithm in memory it allocates itself): the two calls of a
// direction take the same arguments.
Rankings Rank(bool find, cudnnHandle_t handle, cudnnTensorDescriptor_t x,
              cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,
              cudnnTensorDescriptor_t y) {
  const int kMax = 16;
  auto forward = find ? cudnnFindConvolutionForwardAlgorithm
                      : cudnnGetConvolutionForwardAlgorithm_v7;
  auto data = find ? cudnnFindConvolutionBackwardDataAlgorithm
                   : cudnnGetConvolutionBackwardDataAlgorithm_v7;
  auto filter = find ? cudnnFindConvolutionBackwardFilterAlgorithm
                     : cudnnGetConvolutionBackwardFilterAlgorithm_v7;
  Rankings r;
  int n = 0;
  r.forward.resize(kMax);
  CUDNN_CHECK(forward(handle, x, w, c, y, kMax, &n, r.forward.data()));
  r.forward.resize(n);
  r.data.resize(kMax);
  CUDNN_CHECK(data(handle, w, y, c, x, kMax, &n, r.data.data()));
  r.data.resize(n);
  r.filter.resize(kMax);
  CUDNN_CHECK(filter(handle, x, y, c, w, kMax, &n, r.filter.data()));
  r.filter.resize(n);
  return r;
}

// Find's timings vary from run to run, so its ranking is kept per shape
// for the whole process: every net built in it then runs the same
// algorithms, and mem_param stays bit-identical to no mem_param.
Rankings FoundOnce(const std::vector<int>& key, cudnnHandle_t handle,
                   cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                   cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y) {
  static std::mutex mutex;
  static std::map<std::vector<int>, Rankings> found;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = found.find(key);
  if (it == found.end())
    it = found.emplace(key, Rank(true, handle, x, w, c, y)).first;
  return it->second;
}

}  // namespace

template <typename Dtype>
CudnnConv<Dtype>::CudnnConv(const CudnnConvShape& s)
    : shape_(s),
      tensor_core_(sizeof(Dtype) == sizeof(float) && AllowTf32()),
      deterministic_(!AllowNondeterministic()) {
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
  // DEFAULT math lets cuDNN offer float algorithms with TF32 tensor cores
  // (ChooseAlgorithm still refuses them unless TF32 is allowed); FMA math
  // offers only full-precision ones.
  CUDNN_CHECK(cudnnSetConvolutionMathType(
      conv_desc_, sizeof(Dtype) == sizeof(float) && !tensor_core_
                      ? CUDNN_FMA_MATH
                      : CUDNN_DEFAULT_MATH));
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
  const CudnnConvShape& s = shape_;
  // Find's rankings are kept per device, type, math and geometry.
  std::vector<int> key = {CurrentDevice("cuDNN"),
                          static_cast<int>(sizeof(Dtype)), tensor_core_};
  key.insert(key.end(), {s.num, s.channels, s.height, s.width,
                         s.out_channels, s.out_height, s.out_width, s.kernel_h,
                         s.kernel_w, s.pad_h, s.pad_w, s.stride_h, s.stride_w,
                         s.dilation_h, s.dilation_w, s.group});
  const Rankings r =
      ConvAlgo() == ConvAlgoSearch::kFind
          ? FoundOnce(key, handle, x_desc_, w_desc_, conv_desc_, y_desc_)
          : Rank(false, handle, x_desc_, w_desc_, conv_desc_, y_desc_);
  limit_ = limit;
  const std::vector<ConvAlgorithmCandidate> candidates[kConvDirections] = {
      Candidates<Dtype>(r.forward), Candidates<Dtype>(r.data),
      Candidates<Dtype>(r.filter)};
  int chosen[kConvDirections];
  for (int d = 0; d < kConvDirections; ++d) {
    chosen[d] =
        ChooseAlgorithm(candidates[d], limit, deterministic_, tensor_core_);
    has_[d] = chosen[d] >= 0;
    workspace_[d] = has_[d] ? candidates[d][chosen[d]].workspace_bytes : 0;
    least_eligible_[d] =
        LeastEligibleWorkspace(candidates[d], deterministic_, tensor_core_);
    ranking_[d] = DescribeCandidates(candidates[d]);
  }
  const int f = chosen[0], d = chosen[1], w = chosen[2];
  if (f >= 0) {
    forward_algo_ = r.forward[f].algo;
    forward_math_ = r.forward[f].mathType;
  }
  if (d >= 0) {
    data_algo_ = r.data[d].algo;
    data_math_ = r.data[d].mathType;
  }
  if (w >= 0) {
    filter_algo_ = r.filter[w].algo;
    filter_math_ = r.filter[w].mathType;
  }
  return f >= 0 && d >= 0 && w >= 0;
}

template <typename Dtype>
size_t CudnnConv<Dtype>::WorkspaceBytes() const {
  return std::max({workspace_[0], workspace_[1], workspace_[2]});
}

template <typename Dtype>
std::string CudnnConv<Dtype>::Why(ConvDirection d) const {
  std::ostringstream s;
  const int i = Index(d);
  if (has_[i]) {
    s << "an algorithm with " << workspace_[i] << " bytes of workspace";
  } else if (least_eligible_[i] == SIZE_MAX) {
    s << (deterministic_ ? "no deterministic algorithm" : "no algorithm")
      << (tensor_core_ ? "" : " without tensor-core math");
  } else {
    s << "the least workspace of "
      << (deterministic_ ? "a deterministic algorithm" : "an algorithm")
      << " is " << least_eligible_[i] << " bytes, over the limit of "
      << limit_;
  }
  return s.str();
}

template <typename Dtype>
void CudnnConv<Dtype>::Forward(const Dtype* x, const Dtype* w, Dtype* y,
                               void* workspace) {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnSetConvolutionMathType(conv_desc_, forward_math_));
  CUDNN_CHECK(cudnnConvolutionForward(
      CudnnHandle(), &one, x_desc_, x, w_desc_, w, conv_desc_, forward_algo_,
      workspace, workspace_[0], &zero, y_desc_, y));
}

template <typename Dtype>
void CudnnConv<Dtype>::BackwardData(const Dtype* w, const Dtype* dy,
                                    Dtype* dx, void* workspace) {
  const Dtype one = 1, zero = 0;
  CUDNN_CHECK(cudnnSetConvolutionMathType(conv_desc_, data_math_));
  CUDNN_CHECK(cudnnConvolutionBackwardData(
      CudnnHandle(), &one, w_desc_, w, y_desc_, dy, conv_desc_, data_algo_,
      workspace, workspace_[1], &zero, x_desc_, dx));
}

template <typename Dtype>
void CudnnConv<Dtype>::BackwardFilter(const Dtype* x, const Dtype* dy,
                                      Dtype* dw, void* workspace) {
  const Dtype one = 1;
  CUDNN_CHECK(cudnnSetConvolutionMathType(conv_desc_, filter_math_));
  CUDNN_CHECK(cudnnConvolutionBackwardFilter(
      CudnnHandle(), &one, x_desc_, x, y_desc_, dy, conv_desc_, filter_algo_,
      workspace, workspace_[2], &one, w_desc_, dw));
}

template class CudnnConv<float>;
template class CudnnConv<double>;

}  // namespace caffe

#endif  // USE_CUDA
