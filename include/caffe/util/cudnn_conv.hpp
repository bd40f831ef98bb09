// cudnn_conv.hpp: the cuDNN engine for 2-D convolution (USE_CUDA builds).
//
// Contract:
//  * Constructed from the layer's geometry for a whole batch; builds the
//    tensor, filter and convolution descriptors (groups and dilation
//    included).  Descriptor building needs no GPU, so OutputDim -- what
//    cuDNN computes the output to be -- is tested on any machine against
//    the layer's own shape arithmetic.
//  * ChooseAlgorithms(limit) asks cuDNN (a GPU is needed) to rank forward,
//    backward-data and backward-filter algorithms -- its heuristics, or
//    measured times with conv_algo find (util/gpu_math_options.hpp) -- and
//    keeps, for each direction on its own, the first deterministic one
//    whose workspace fits `limit` (conv_algorithm.hpp): deterministic so
//    that mem_param and recomputation stay bit-identical -- unless
//    nondeterministic algorithms were allowed (AllowNondeterministic)
//    when the engine was made, which lets the first one that fits win,
//    whatever cuDNN says of its determinism.  Tensor-core
//    (TF32) math only if TF32 was allowed when the engine was made;
//    otherwise GPU results stay within the stated tolerance of the CPU's.
//    Has(direction) says whether that direction got one; Why(direction)
//    says, for the log, why not, and Ranking(direction) lists what cuDNN
//    offered.  A direction without one must not run.
//  * Forward writes y; BackwardData writes dx; BackwardFilter adds into dw
//    (parameter diffs accumulate, as everywhere in Caffe).  `workspace`
//    holds at least WorkspaceBytes().  Biases are the layer's business.
#ifndef CAFFE_UTIL_CUDNN_CONV_HPP_
#define CAFFE_UTIL_CUDNN_CONV_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

#include <cstddef>
#include <string>

#include "caffe/util/conv_algorithm.hpp"

namespace caffe {

struct CudnnConvShape {
  int num, channels, height, width;
  int out_channels, out_height, out_width;
  int kernel_h, kernel_w, pad_h, pad_w, stride_h, stride_w;
  int dilation_h, dilation_w, group;
};

template <typename Dtype>
class CudnnConv {
 public:
  explicit CudnnConv(const CudnnConvShape& shape);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  const CudnnConvShape& shape() const { return shape_; }
  void OutputDim(int* n, int* c, int* h, int* w) const;
  // True when every direction has an algorithm.
  bool ChooseAlgorithms(size_t workspace_limit);
  bool Has(ConvDirection d) const { return has_[Index(d)]; }
  // The chosen algorithm's workspace in direction d (0 without one).
  size_t WorkspaceBytes(ConvDirection d) const {
    return workspace_[Index(d)];
  }
  // The largest of the three.
  size_t WorkspaceBytes() const;
  std::string Why(ConvDirection d) const;
  // cuDNN's ranking in direction d, every candidate (DescribeCandidates).
  const std::string& Ranking(ConvDirection d) const {
    return ranking_[Index(d)];
  }

  void Forward(const Dtype* x, const Dtype* w, Dtype* y, void* workspace);
  void BackwardData(const Dtype* w, const Dtype* dy, Dtype* dx,
                    void* workspace);
  void BackwardFilter(const Dtype* x, const Dtype* dy, Dtype* dw,
                      void* workspace);

 private:
  static int Index(ConvDirection d) { return static_cast<int>(d); }

  CudnnConvShape shape_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t forward_algo_{};
  cudnnConvolutionBwdDataAlgo_t data_algo_{};
  cudnnConvolutionBwdFilterAlgo_t filter_algo_{};
  // The math type each chosen algorithm was ranked with, set on the
  // descriptor before its call.
  cudnnMathType_t forward_math_ = CUDNN_DEFAULT_MATH;
  cudnnMathType_t data_math_ = CUDNN_DEFAULT_MATH;
  cudnnMathType_t filter_math_ = CUDNN_DEFAULT_MATH;
  bool tensor_core_;  // TF32 allowed (floats only), fixed at construction
  bool deterministic_;  // only deterministic algorithms, fixed likewise
  bool has_[kConvDirections] = {false, false, false};
  size_t workspace_[kConvDirections] = {0, 0, 0};
  // Per direction, the least workspace of any eligible algorithm the
  // ranking offered, or SIZE_MAX when it offered none: what Why() reports.
  size_t least_eligible_[kConvDirections] = {0, 0, 0};
  std::string ranking_[kConvDirections];
  size_t limit_ = 0;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_CONV_HPP_
