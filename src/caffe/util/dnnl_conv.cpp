#include "caffe/util/dnnl_conv.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef USE_DNNL
#include "caffe/util/dnnl_common.hpp"
#endif

namespace caffe {

bool DnnlAvailable() {
#ifdef USE_DNNL
  return true;
#else
  return false;
#endif
}

bool DnnlConvShape::operator==(const DnnlConvShape& o) const {
  return num == o.num && channels == o.channels && height == o.height &&
         width == o.width && num_output == o.num_output &&
         out_height == o.out_height && out_width == o.out_width &&
         kernel_h == o.kernel_h && kernel_w == o.kernel_w &&
         stride_h == o.stride_h && stride_w == o.stride_w &&
         pad_h == o.pad_h && pad_w == o.pad_w &&
         dilation_h == o.dilation_h && dilation_w == o.dilation_w &&
         group == o.group && bias == o.bias;
}

#ifdef USE_DNNL

using dnnl::memory;
using Tag = dnnl::memory::format_tag;
using DT = dnnl::memory::data_type;

dnnl::engine& DnnlEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& DnnlStream() {
  static thread_local dnnl::stream stream(DnnlEngine());
  return stream;
}

void DnnlOperand::Init(const memory::desc& user_desc,
                       const memory::desc& prim_desc, bool is_input,
                       DnnlWorkspaceLayout* layout, bool accumulate) {
  user = user_desc;
  prim = prim_desc;
  reordered = accumulate || user != prim;
  if (!reordered) return;
  offset = layout->Take(prim.get_size());
  dnnl::engine& eng = DnnlEngine();
  if (is_input) {
    conversion = dnnl::reorder(dnnl::reorder::primitive_desc(eng, user, eng,
                                                             prim));
  } else {
    if (accumulate) {
      accumulation = BlockedAccumulate::Make(prim, user);
      if (accumulation) return;
    }
    dnnl::primitive_attr attr;
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.f);
      attr.set_post_ops(ops);
    }
    conversion = dnnl::reorder(
        dnnl::reorder::primitive_desc(eng, prim, eng, user, attr));
  }
}

memory DnnlOperand::Bind(const void* user_ptr, char* workspace,
                         bool is_input) const {
  memory user_mem(user, DnnlEngine(), const_cast<void*>(user_ptr));
  if (!reordered) return user_mem;
  memory prim_mem(prim, DnnlEngine(), workspace + offset);
  if (is_input) {
    conversion.execute(DnnlStream(), {{DNNL_ARG_FROM, user_mem},
                                      {DNNL_ARG_TO, prim_mem}});
  }
  return prim_mem;
}

void DnnlOperand::Finish(const memory& prim_mem, void* user_ptr) const {
  if (!reordered) return;
  if (accumulation) {
    // The primitive must have finished writing prim_mem.
    DnnlStream().wait();
    accumulation->Run(static_cast<const float*>(prim_mem.get_data_handle()),
                      static_cast<float*>(user_ptr));
    return;
  }
  memory user_mem(user, DnnlEngine(), user_ptr);
  conversion.execute(DnnlStream(), {{DNNL_ARG_FROM, prim_mem},
                                    {DNNL_ARG_TO, user_mem}});
}

memory DnnlScratchpad(const memory::desc& desc, char* workspace,
                      size_t offset) {
  return memory(desc, DnnlEngine(), workspace + offset);
}

namespace {

// Which tensor layouts the convolution primitives are asked to use.
enum class ConvLayout {
  kBlocked,  // format_tag::any: oneDNN's blocked layouts, reorders around
  kPlain,    // nchw / oihw as Caffe holds them (oneDNN's gemm kernels)
};

enum { kFwd = 0, kBwdData = 1, kBwdWeights = 2 };

// A fixed rule (never timing, so the choice and hence the results are the
// same every run), from per-layer timings of CaffeNet, GoogLeNet, ResNet-50
// and VGG-16 layers with oneDNN 2.6 on AVX-512:
//  * blocked layouts win for spatial kernels (2x over plain on VGG's 3x3);
//  * for 1x1 convolutions on large maps (>= 28x28 outputs) the reorders
//    cost more than they save, and the plain (GEMM) kernels win;
//  * backward data of a layer with few input channels (the first layer,
//    C = 3) is 3-5x slower blocked than plain.
// LEANCAFFE_DNNL_CONV_LAYOUT=plain|blocked overrides it (for experiments).
ConvLayout ChooseLayout(const DnnlConvShape& s, int which) {
  const char* env = std::getenv("LEANCAFFE_DNNL_CONV_LAYOUT");
  if (env && std::strcmp(env, "plain") == 0) return ConvLayout::kPlain;
  if (env && std::strcmp(env, "blocked") == 0) return ConvLayout::kBlocked;
  const bool one_by_one = s.kernel_h == 1 && s.kernel_w == 1;
  if (one_by_one && s.out_height * s.out_width >= 28 * 28) {
    return ConvLayout::kPlain;
  }
  if (which == kBwdData && s.channels / s.group <= 4) {
    return ConvLayout::kPlain;
  }
  return ConvLayout::kBlocked;
}

}  // namespace

struct DnnlConv::Impl {
  DnnlConvShape s;
  size_t workspace_bytes = 0;
  std::string info;

  memory::desc user_src, user_dst, user_wei, user_bias;

  dnnl::convolution_forward fwd;
  DnnlOperand f_src, f_wei, f_dst;
  memory::desc f_scratch;
  size_t f_scratch_off = 0;

  dnnl::convolution_backward_data bwd_data;
  DnnlOperand d_ddst, d_wei, d_dsrc;
  memory::desc d_scratch;
  size_t d_scratch_off = 0;

  dnnl::convolution_backward_weights bwd_weights;
  DnnlOperand w_src, w_ddst, w_dwei, w_dbias;
  memory::desc w_scratch;
  size_t w_scratch_off = 0;

  // d_ddst and w_ddst are one copy of dy (see Create).
  bool shared_ddst = false;
};

DnnlConv::DnnlConv() : impl_(new Impl) {}
DnnlConv::~DnnlConv() {}

const DnnlConvShape& DnnlConv::shape() const { return impl_->s; }
size_t DnnlConv::WorkspaceBytes() const { return impl_->workspace_bytes; }
std::string DnnlConv::ImplInfo() const { return impl_->info; }

std::shared_ptr<DnnlConv> DnnlConv::Create(const DnnlConvShape& s) {
  if (s.num <= 0 || s.channels <= 0 || s.group <= 0 ||
      s.channels % s.group != 0 || s.num_output % s.group != 0) {
    return nullptr;
  }
  // oneDNN's output size must equal Caffe's (floor) formula with symmetric
  // padding; check rather than trust.
  const int ext_h = s.dilation_h * (s.kernel_h - 1) + 1;
  const int ext_w = s.dilation_w * (s.kernel_w - 1) + 1;
  if ((s.height + 2 * s.pad_h - ext_h) / s.stride_h + 1 != s.out_height ||
      (s.width + 2 * s.pad_w - ext_w) / s.stride_w + 1 != s.out_width) {
    return nullptr;
  }
  std::shared_ptr<DnnlConv> conv(new DnnlConv);
  Impl& m = *conv->impl_;
  m.s = s;
  try {
    dnnl::engine& eng = DnnlEngine();
    const memory::dims src_dims = {s.num, s.channels, s.height, s.width};
    const memory::dims dst_dims = {s.num, s.num_output, s.out_height,
                                   s.out_width};
    memory::dims wei_dims;
    Tag wei_tag;
    if (s.group == 1) {
      wei_dims = {s.num_output, s.channels, s.kernel_h, s.kernel_w};
      wei_tag = Tag::oihw;
    } else {
      wei_dims = {s.group, s.num_output / s.group, s.channels / s.group,
                  s.kernel_h, s.kernel_w};
      wei_tag = Tag::goihw;
    }
    const memory::dims bias_dims = {s.num_output};
    const memory::dims strides = {s.stride_h, s.stride_w};
    const memory::dims dilates = {s.dilation_h - 1, s.dilation_w - 1};
    const memory::dims padding = {s.pad_h, s.pad_w};
    m.user_src = memory::desc(src_dims, DT::f32, Tag::nchw);
    m.user_dst = memory::desc(dst_dims, DT::f32, Tag::nchw);
    m.user_wei = memory::desc(wei_dims, DT::f32, wei_tag);
    m.user_bias = memory::desc(bias_dims, DT::f32, Tag::x);
    const memory::desc no_bias;

    auto descs = [&](ConvLayout layout, memory::desc* src, memory::desc* wei,
                     memory::desc* dst) {
      const bool plain = layout == ConvLayout::kPlain;
      *src = memory::desc(src_dims, DT::f32, plain ? Tag::nchw : Tag::any);
      *dst = memory::desc(dst_dims, DT::f32, plain ? Tag::nchw : Tag::any);
      *wei = memory::desc(wei_dims, DT::f32, plain ? wei_tag : Tag::any);
    };
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);

    // Builds a primitive descriptor with the preferred layout, or the other
    // one if oneDNN has no implementation for the preferred.
    auto make_pd = [&](int which, auto build) {
      const ConvLayout first = ChooseLayout(s, which);
      memory::desc src, wei, dst;
      descs(first, &src, &wei, &dst);
      try {
        return build(src, wei, dst);
      } catch (const dnnl::error&) {
        descs(first == ConvLayout::kPlain ? ConvLayout::kBlocked
                                          : ConvLayout::kPlain,
              &src, &wei, &dst);
        return build(src, wei, dst);
      }
    };

    // Forward (training: the backward primitives take it as their hint).
    const dnnl::convolution_forward::primitive_desc fpd = make_pd(
        kFwd, [&](const memory::desc& src, const memory::desc& wei,
                  const memory::desc& dst) {
          dnnl::convolution_forward::desc d(
              dnnl::prop_kind::forward_training,
              dnnl::algorithm::convolution_direct, src, wei,
              s.bias ? m.user_bias : no_bias, dst, strides, dilates, padding,
              padding);
          return dnnl::convolution_forward::primitive_desc(d, attr, eng);
        });
    {
      DnnlWorkspaceLayout layout;
      m.f_scratch = fpd.scratchpad_desc();
      m.f_scratch_off = layout.Take(m.f_scratch.get_size());
      m.f_src.Init(m.user_src, fpd.src_desc(), true, &layout);
      m.f_wei.Init(m.user_wei, fpd.weights_desc(), true, &layout);
      m.f_dst.Init(m.user_dst, fpd.dst_desc(), false, &layout);
      m.fwd = dnnl::convolution_forward(fpd);
      m.workspace_bytes = std::max(m.workspace_bytes, layout.size);
    }

    // Backward data, and backward weights (and bias) accumulated into the
    // user's diffs.
    const dnnl::convolution_backward_data::primitive_desc dpd = make_pd(
        kBwdData, [&](const memory::desc& src, const memory::desc& wei,
                      const memory::desc& dst) {
          dnnl::convolution_backward_data::desc d(
              dnnl::algorithm::convolution_direct, src, wei, dst, strides,
              dilates, padding, padding);
          return dnnl::convolution_backward_data::primitive_desc(d, attr, eng,
                                                                 fpd);
        });
    const dnnl::convolution_backward_weights::primitive_desc wpd = make_pd(
        kBwdWeights, [&](const memory::desc& src, const memory::desc& wei,
                         const memory::desc& dst) {
          dnnl::convolution_backward_weights::desc d(
              dnnl::algorithm::convolution_direct, src, wei,
              s.bias ? m.user_bias : no_bias, dst, strides, dilates, padding,
              padding);
          return dnnl::convolution_backward_weights::primitive_desc(d, attr,
                                                                    eng, fpd);
        });
    // Backward runs the weights primitive, then the data primitive.  When
    // both want dy in the same non-plain layout, its copy sits first in
    // the workspace and both primitives' other operands start after it
    // (they never run at once, so they may overlap each other).
    m.shared_ddst = dpd.diff_dst_desc() == wpd.diff_dst_desc() &&
                    dpd.diff_dst_desc() != m.user_dst;
    DnnlWorkspaceLayout shared;
    if (m.shared_ddst) {
      m.d_ddst.Init(m.user_dst, dpd.diff_dst_desc(), true, &shared);
      m.w_ddst = m.d_ddst;
    }
    {
      DnnlWorkspaceLayout layout = shared;
      m.w_scratch = wpd.scratchpad_desc();
      m.w_scratch_off = layout.Take(m.w_scratch.get_size());
      m.w_src.Init(m.user_src, wpd.src_desc(), true, &layout);
      if (!m.shared_ddst) {
        m.w_ddst.Init(m.user_dst, wpd.diff_dst_desc(), true, &layout);
      }
      m.w_dwei.Init(m.user_wei, wpd.diff_weights_desc(), false, &layout,
                    true);
      if (s.bias) {
        m.w_dbias.Init(m.user_bias, wpd.diff_bias_desc(), false, &layout,
                       true);
      }
      m.bwd_weights = dnnl::convolution_backward_weights(wpd);
      m.workspace_bytes = std::max(m.workspace_bytes, layout.size);
    }
    {
      DnnlWorkspaceLayout layout = shared;
      m.d_scratch = dpd.scratchpad_desc();
      m.d_scratch_off = layout.Take(m.d_scratch.get_size());
      if (!m.shared_ddst) {
        m.d_ddst.Init(m.user_dst, dpd.diff_dst_desc(), true, &layout);
      }
      m.d_wei.Init(m.user_wei, dpd.weights_desc(), true, &layout);
      m.d_dsrc.Init(m.user_src, dpd.diff_src_desc(), false, &layout);
      m.bwd_data = dnnl::convolution_backward_data(dpd);
      m.workspace_bytes = std::max(m.workspace_bytes, layout.size);
    }
    m.info = std::string("fwd ") + fpd.impl_info_str() + ", bwd_data " +
             dpd.impl_info_str() + ", bwd_weights " + wpd.impl_info_str();
  } catch (const dnnl::error& e) {
    LOG(INFO) << "oneDNN cannot run this convolution (" << e.what()
              << "); using im2col";
    return nullptr;
  }
  return conv;
}

void DnnlConv::Forward(const float* x, const float* w, const float* b,
                       float* y, void* workspace) const {
  const Impl& m = *impl_;
  char* ws = static_cast<char*>(workspace);
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = m.f_src.Bind(x, ws, true);
  args[DNNL_ARG_WEIGHTS] = m.f_wei.Bind(w, ws, true);
  if (m.s.bias) {
    args[DNNL_ARG_BIAS] =
        memory(m.user_bias, DnnlEngine(), const_cast<float*>(b));
  }
  memory dst = m.f_dst.Bind(y, ws, false);
  args[DNNL_ARG_DST] = dst;
  args[DNNL_ARG_SCRATCHPAD] = DnnlScratchpad(m.f_scratch, ws,
                                             m.f_scratch_off);
  m.fwd.execute(DnnlStream(), args);
  m.f_dst.Finish(dst, y);
  DnnlStream().wait();
}

bool DnnlConv::SharesDiffDst() const { return impl_->shared_ddst; }

void DnnlConv::Backward(const float* x, const float* dy, const float* w,
                        float* dw, float* db, float* dx,
                        void* workspace) const {
  const Impl& m = *impl_;
  char* ws = static_cast<char*>(workspace);
  bool ddst_ready = false;
  if (dw) {
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_SRC] = m.w_src.Bind(x, ws, true);
    args[DNNL_ARG_DIFF_DST] = m.w_ddst.Bind(dy, ws, true);
    ddst_ready = m.shared_ddst;
    memory dwei = m.w_dwei.Bind(dw, ws, false);
    args[DNNL_ARG_DIFF_WEIGHTS] = dwei;
    memory dbias;
    if (m.s.bias) {
      dbias = m.w_dbias.Bind(db, ws, false);
      args[DNNL_ARG_DIFF_BIAS] = dbias;
    }
    args[DNNL_ARG_SCRATCHPAD] = DnnlScratchpad(m.w_scratch, ws,
                                               m.w_scratch_off);
    m.bwd_weights.execute(DnnlStream(), args);
    m.w_dwei.Finish(dwei, dw);
    if (m.s.bias && db) m.w_dbias.Finish(dbias, db);
    DnnlStream().wait();
  }
  if (dx) {
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_DIFF_DST] = ddst_ready ? m.d_ddst.Bind(dy, ws, false)
                                         : m.d_ddst.Bind(dy, ws, true);
    args[DNNL_ARG_WEIGHTS] = m.d_wei.Bind(w, ws, true);
    memory dsrc = m.d_dsrc.Bind(dx, ws, false);
    args[DNNL_ARG_DIFF_SRC] = dsrc;
    args[DNNL_ARG_SCRATCHPAD] = DnnlScratchpad(m.d_scratch, ws,
                                               m.d_scratch_off);
    m.bwd_data.execute(DnnlStream(), args);
    m.d_dsrc.Finish(dsrc, dx);
    DnnlStream().wait();
  }
}

#else  // !USE_DNNL

struct DnnlConv::Impl {
  DnnlConvShape s;
};

DnnlConv::DnnlConv() : impl_(new Impl) {}
DnnlConv::~DnnlConv() {}
std::shared_ptr<DnnlConv> DnnlConv::Create(const DnnlConvShape&) {
  return nullptr;
}
const DnnlConvShape& DnnlConv::shape() const { return impl_->s; }
size_t DnnlConv::WorkspaceBytes() const { return 0; }
std::string DnnlConv::ImplInfo() const { return ""; }
void DnnlConv::Forward(const float*, const float*, const float*, float*,
                       void*) const {}
bool DnnlConv::SharesDiffDst() const { return false; }
void DnnlConv::Backward(const float*, const float*, const float*, float*,
                        float*, float*, void*) const {}

#endif  // USE_DNNL

}  // namespace caffe
