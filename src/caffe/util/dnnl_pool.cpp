#include "caffe/util/dnnl_pool.hpp"

#include <glog/logging.h>

#include <algorithm>

#ifdef USE_DNNL
#include "caffe/util/dnnl_common.hpp"
#endif

namespace caffe {

bool DnnlPoolShape::operator==(const DnnlPoolShape& o) const {
  return num == o.num && channels == o.channels && height == o.height &&
         width == o.width && out_height == o.out_height &&
         out_width == o.out_width && kernel_h == o.kernel_h &&
         kernel_w == o.kernel_w && stride_h == o.stride_h &&
         stride_w == o.stride_w && pad_h == o.pad_h && pad_w == o.pad_w;
}

#ifdef USE_DNNL

using dnnl::memory;
using Tag = dnnl::memory::format_tag;
using DT = dnnl::memory::data_type;

struct DnnlPool::Impl {
  DnnlPoolShape s;
  memory::desc src, dst, fwd_scratch, bwd_scratch;
  dnnl::pooling_forward fwd;
  dnnl::pooling_backward bwd;
  size_t scratch_bytes = 0;
};

DnnlPool::DnnlPool() : impl_(new Impl) {}
DnnlPool::~DnnlPool() {}

const DnnlPoolShape& DnnlPool::shape() const { return impl_->s; }
size_t DnnlPool::ScratchBytes() const { return impl_->scratch_bytes; }

std::shared_ptr<DnnlPool> DnnlPool::Create(const DnnlPoolShape& s) {
  if (s.num <= 0 || s.channels <= 0 || s.out_height <= 0 ||
      s.out_width <= 0) {
    return nullptr;
  }
  // Padding after the image that gives Caffe's output size.
  const int pad_b = (s.out_height - 1) * s.stride_h + s.kernel_h - s.height -
                    s.pad_h;
  const int pad_r = (s.out_width - 1) * s.stride_w + s.kernel_w - s.width -
                    s.pad_w;
  if (pad_b < 0 || pad_r < 0) return nullptr;
  dnnl::algorithm alg;
  if (s.pad_h == 0 && s.pad_w == 0) {
    // Caffe divides by the pixels inside the image.
    alg = dnnl::algorithm::pooling_avg_exclude_padding;
  } else if (pad_b <= s.pad_h && pad_r <= s.pad_w) {
    // Every window lies in [-pad, H + pad): Caffe divides by kh * kw.
    alg = dnnl::algorithm::pooling_avg_include_padding;
  } else {
    return nullptr;
  }
  std::shared_ptr<DnnlPool> pool(new DnnlPool);
  Impl& m = *pool->impl_;
  m.s = s;
  try {
    dnnl::engine& eng = DnnlEngine();
    m.src = memory::desc({s.num, s.channels, s.height, s.width}, DT::f32,
                         Tag::nchw);
    m.dst = memory::desc({s.num, s.channels, s.out_height, s.out_width},
                         DT::f32, Tag::nchw);
    const memory::dims strides = {s.stride_h, s.stride_w};
    const memory::dims kernel = {s.kernel_h, s.kernel_w};
    const memory::dims pad_l = {s.pad_h, s.pad_w};
    const memory::dims pad_after = {pad_b, pad_r};
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // One (training) primitive whether or not backward runs: AVE keeps
    // no workspace either way, and one kernel adds in one order.
    dnnl::pooling_forward::desc fdesc(dnnl::prop_kind::forward_training, alg,
                                      m.src, m.dst, strides, kernel, pad_l,
                                      pad_after);
    dnnl::pooling_forward::primitive_desc fpd(fdesc, attr, eng);
    if (fpd.dst_desc() != m.dst) return nullptr;
    m.fwd_scratch = fpd.scratchpad_desc();
    m.scratch_bytes = m.fwd_scratch.get_size();
    m.fwd = dnnl::pooling_forward(fpd);
    dnnl::pooling_backward::desc bdesc(alg, m.src, m.dst, strides, kernel,
                                       pad_l, pad_after);
    dnnl::pooling_backward::primitive_desc bpd(bdesc, attr, eng, fpd);
    if (bpd.diff_src_desc() != m.src) return nullptr;
    m.bwd_scratch = bpd.scratchpad_desc();
    m.scratch_bytes = std::max(m.scratch_bytes, m.bwd_scratch.get_size());
    m.bwd = dnnl::pooling_backward(bpd);
  } catch (const dnnl::error& e) {
    LOG(INFO) << "oneDNN cannot run this pooling (" << e.what()
              << "); using Caffe's loops";
    return nullptr;
  }
  return pool;
}

void DnnlPool::Forward(const float* x, float* y, void* scratch) const {
  const Impl& m = *impl_;
  dnnl::engine& eng = DnnlEngine();
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(m.src, eng, const_cast<float*>(x))},
      {DNNL_ARG_DST, memory(m.dst, eng, y)},
      {DNNL_ARG_SCRATCHPAD, memory(m.fwd_scratch, eng, scratch)}};
  m.fwd.execute(DnnlStream(), args);
  DnnlStream().wait();
}

void DnnlPool::Backward(const float* dy, float* dx, void* scratch) const {
  const Impl& m = *impl_;
  dnnl::engine& eng = DnnlEngine();
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_DIFF_DST, memory(m.dst, eng, const_cast<float*>(dy))},
      {DNNL_ARG_DIFF_SRC, memory(m.src, eng, dx)},
      {DNNL_ARG_SCRATCHPAD, memory(m.bwd_scratch, eng, scratch)}};
  m.bwd.execute(DnnlStream(), args);
  DnnlStream().wait();
}

#else  // !USE_DNNL

struct DnnlPool::Impl {
  DnnlPoolShape s;
};

DnnlPool::DnnlPool() : impl_(new Impl) {}
DnnlPool::~DnnlPool() {}
std::shared_ptr<DnnlPool> DnnlPool::Create(const DnnlPoolShape&) {
  return nullptr;
}
const DnnlPoolShape& DnnlPool::shape() const { return impl_->s; }
size_t DnnlPool::ScratchBytes() const { return 0; }
void DnnlPool::Forward(const float*, float*, void*) const {}
void DnnlPool::Backward(const float*, float*, void*) const {}

#endif  // USE_DNNL

}  // namespace caffe
