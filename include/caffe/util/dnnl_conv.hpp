// dnnl_conv.hpp: the oneDNN (DNNL) engine for 2-D float convolution.
//
// Contract:
//  * DnnlAvailable() is true when the library was built with USE_DNNL.
//    Without it DnnlConv::Create returns nullptr and callers use im2col.
//  * DnnlConv::Create(shape) builds forward, backward-data and
//    backward-weights primitives for one shape (batch included) and returns
//    nullptr when oneDNN cannot run that configuration exactly (callers then
//    fall back to im2col).  Creation is the expensive part; callers keep the
//    object (BaseConvolutionLayer keeps a few per layer, keyed by shape) and
//    oneDNN's own primitive cache shares identical primitives across layers.
//  * All user tensors are Caffe's plain layouts: data N x C x H x W, weights
//    O x C/group x KH x KW (so snapshots stay Caffe's), bias O.  Internally
//    oneDNN may use blocked layouts; the reorders to and from them, and each
//    primitive's scratchpad, live in the caller's workspace, which must hold
//    WorkspaceBytes() bytes and be 64-byte aligned.  Nothing is kept between
//    calls, so one workspace can be shared by every layer run on a thread.
//  * Forward writes y (bias added when shape.bias).  Backward ADDS the
//    weight and bias gradients to dw and db (Caffe accumulates parameter
//    gradients; dw null: none, db null: no bias gradient) and then writes
//    dx (null: none).  Doing both in one call lets them share dy: when
//    both primitives want it in the same blocked layout it is reordered
//    once (the workspace size is unchanged: the two primitives' other
//    operands overlap after it).
//  * Results are deterministic for a fixed thread count: oneDNN's CPU
//    convolutions partition work statically and reduce in a fixed order.
//  * Threads: oneDNN runs on its OpenMP runtime (Debian's libdnnl uses
//    libgomp), so OMP_NUM_THREADS sets the thread count.
#ifndef CAFFE_UTIL_DNNL_CONV_HPP_
#define CAFFE_UTIL_DNNL_CONV_HPP_

#include <cstddef>
#include <memory>
#include <string>

namespace caffe {

bool DnnlAvailable();

struct DnnlConvShape {
  int num = 0, channels = 0, height = 0, width = 0;
  int num_output = 0, out_height = 0, out_width = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;
  int dilation_h = 1, dilation_w = 1;  // Caffe's convention (1 = dense)
  int group = 1;
  bool bias = true;

  bool operator==(const DnnlConvShape& o) const;
  bool operator!=(const DnnlConvShape& o) const { return !(*this == o); }
};

class DnnlConv {
 public:
  ~DnnlConv();
  // nullptr when oneDNN is not built in or cannot run this shape.
  static std::shared_ptr<DnnlConv> Create(const DnnlConvShape& shape);

  const DnnlConvShape& shape() const;
  size_t WorkspaceBytes() const;
  // Implementation names chosen by oneDNN (for logs and tests).
  std::string ImplInfo() const;

  void Forward(const float* x, const float* w, const float* b, float* y,
               void* workspace) const;
  void Backward(const float* x, const float* dy, const float* w, float* dw,
                float* db, float* dx, void* workspace) const;
  // True when Backward reorders dy once for both gradients (tests).
  bool SharesDiffDst() const;

  struct Impl;

 private:
  DnnlConv();
  std::unique_ptr<Impl> impl_;
};

}  // namespace caffe

#endif  // CAFFE_UTIL_DNNL_CONV_HPP_
