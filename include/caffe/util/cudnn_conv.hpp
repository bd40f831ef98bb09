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
//    keeps, for each, the first deterministic one whose workspace fits
//    `limit` (conv_algorithm.hpp): deterministic so that mem_param and
//    recomputation stay bit-identical.  Tensor-core (TF32) math only if
//    TF32 was allowed when the engine was made; otherwise GPU results stay
//    within the stated tolerance of the CPU's.  Returns false when some
//    direction has none; the layer then keeps its im2col path.
//  * Forward writes y; BackwardData writes dx; BackwardFilter adds into dw
//    (parameter diffs accumulate, as everywhere in Caffe).  `workspace`
//    holds at least WorkspaceBytes().  Biases are the layer's business.
#ifndef CAFFE_UTIL_CUDNN_CONV_HPP_
#define CAFFE_UTIL_CUDNN_CONV_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

#include <cstddef>

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
  bool ChooseAlgorithms(size_t workspace_limit);
  size_t WorkspaceBytes() const { return workspace_bytes_; }

  void Forward(const Dtype* x, const Dtype* w, Dtype* y, void* workspace);
  void BackwardData(const Dtype* w, const Dtype* dy, Dtype* dx,
                    void* workspace);
  void BackwardFilter(const Dtype* x, const Dtype* dy, Dtype* dw,
                      void* workspace);

 private:
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
  size_t workspace_bytes_ = 0;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_CONV_HPP_
