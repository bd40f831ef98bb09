// dnnl_pool.hpp: the oneDNN (DNNL) engine for float AVE pooling with
// Caffe's exact semantics.  (MAX runs the layer's own bodies: oneDNN 2.6
// pools the plain NCHW layout with a kernel three to five times slower;
// pooling_layer.cpp, SelectEngine.)
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
//    (include_padding).
//  * Nothing is kept from Forward to Backward; Backward needs only top
//    diff.  Per-call scratch lives in the shared workspace
//    (ScratchBytes()).
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

  bool operator==(const DnnlPoolShape& o) const;
};

class DnnlPool {
 public:
  ~DnnlPool();
  static std::shared_ptr<DnnlPool> Create(const DnnlPoolShape& shape);

  const DnnlPoolShape& shape() const;
  size_t ScratchBytes() const;

  void Forward(const float* x, float* y, void* scratch) const;
  void Backward(const float* dy, float* dx, void* scratch) const;

  struct Impl;

 private:
  DnnlPool();
  std::unique_ptr<Impl> impl_;
};

}  // namespace caffe

#endif  // CAFFE_UTIL_DNNL_POOL_HPP_
