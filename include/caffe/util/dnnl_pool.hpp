// dnnl_pool.hpp: the oneDNN (DNNL) engine for float MAX and AVE pooling
// with Caffe's exact semantics.
//
// Contract:
//  * DnnlPoolShape holds Caffe's geometry, including the output size Caffe
//    computed (ceil or floor rounding, last window inside the image); the
//    right/bottom padding oneDNN needs is derived from it.
//  * DnnlPool::Create returns nullptr (callers fall back to Caffe's loops)
//    when oneDNN is not built in, or when oneDNN cannot reproduce Caffe's
//    result: AVE windows that run past H + pad (Caffe then divides by a
//    count clipped at H + pad, which neither oneDNN divisor matches).
//    AVE with pad 0 divides by the real pixels (oneDNN exclude_padding);
//    AVE whose windows all lie in [-pad, H + pad) divides by kh * kw
//    (include_padding).  MAX ignores padding in both.
//  * MAX keeps oneDNN's workspace (the argmax within each window) from
//    Forward to Backward in caller-owned memory of MaskBytes() bytes;
//    Backward needs only top diff and that mask.  A shape made with
//    training = false (no backward will run) keeps no workspace and has
//    no Backward.  Per-call scratch lives in
//    the shared workspace (ScratchBytes()).
//  * Backward overwrites bottom diff.  Overlapping windows add their
//    gradients; the work split is static, so results are deterministic.
#ifndef CAFFE_UTIL_DNNL_POOL_HPP_
#define CAFFE_UTIL_DNNL_POOL_HPP_

#include <cstddef>
#include <memory>

namespace caffe {

// True when the library was built with USE_DNNL (also in dnnl_conv.hpp).
bool DnnlAvailable();

struct DnnlPoolShape {
  int num = 0, channels = 0, height = 0, width = 0;
  int out_height = 0, out_width = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;
  bool max = true;  // MAX, else AVE
  // False when no backward will run: a forward_inference primitive, which
  // keeps no argmax workspace (MaskBytes() 0) and has no Backward.
  bool training = true;

  bool operator==(const DnnlPoolShape& o) const;
};

class DnnlPool {
 public:
  ~DnnlPool();
  static std::shared_ptr<DnnlPool> Create(const DnnlPoolShape& shape);

  const DnnlPoolShape& shape() const;
  size_t MaskBytes() const;
  size_t ScratchBytes() const;

  void Forward(const float* x, float* y, void* mask, void* scratch) const;
  void Backward(const float* dy, float* dx, const void* mask,
                void* scratch) const;

  struct Impl;

 private:
  DnnlPool();
  std::unique_ptr<Impl> impl_;
};

}  // namespace caffe

#endif  // CAFFE_UTIL_DNNL_POOL_HPP_
