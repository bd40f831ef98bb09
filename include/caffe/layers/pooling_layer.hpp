// pooling_layer.hpp: spatial max / average / stochastic pooling ("Pooling").
//
// Contract (Caffe semantics):
//  * bottom: N x C x H x W (exactly 4 axes).  top[0]: N x C x PH x PW with
//    PH = round((H + 2 * pad_h - kernel_h) / stride_h) + 1, where round is
//    ceil (round_mode CEIL, the default) or floor (FLOOR); when padded, the
//    last window must start inside the image (pad_h + H), so PH is reduced
//    by one if it would start in the padding.  Same for W.
//  * pooling_param: kernel_size or kernel_h+kernel_w, pad or pad_h+pad_w,
//    stride or stride_h+stride_w, global_pooling (kernel = whole image; no
//    kernel, pad or stride may be set), pool = MAX | AVE | STOCHASTIC.
//    Padding is only for MAX and AVE and must be smaller than the kernel.
//  * MAX ignores padded positions; it may produce a second top with the
//    argmax index within the H x W plane (as Dtype).
//  * AVE divides by the window size counted with the padding
//    (clipped to H + pad_h, W + pad_w), summing only real pixels.
//  * STOCHASTIC: in TRAIN picks one window element with probability
//    proportional to its (non-negative) activation; in TEST outputs the
//    activation-weighted average sum(x^2) / sum(x).
//
// Engines: float MAX and AVE pooling with engine DEFAULT (or CUDNN) in a
// USE_DNNL build run on oneDNN (util/dnnl_pool.hpp) when oneDNN reproduces
// Caffe's result exactly (sizes, rounding, padding divisor) and no mask top
// is requested; everything else (engine CAFFE, double, STOCHASTIC, the
// mask top, AVE windows running past H + pad) runs the bodies of
// pooling_kernels.hpp, the GPU's, on the CPU's parallel loop.  In GPU mode
// the same bodies run as CUDA kernels, except that engine CUDNN (set in
// the prototxt; DEFAULT stays with the bodies, which keep less for
// backward) runs AVE on cuDNN (util/cudnn_pool.hpp) where cuDNN's output
// size is the layer's.  MAX stays on the bodies whatever the engine, as in
// BVLC Caffe: cuDNN's MAX backward reads y, which a layer in place on the
// top may have changed.
//
// Memory: MAX and STOCHASTIC-train keep an int argmax per output element
// (InternalBytes()) -- MAX only where its backward runs or its mask top is
// asked for, so a forward-only net (a TEST net under mem_param, layers no
// loss depends on) keeps none and oneDNN runs its inference primitive;
// with oneDNN (CPU mode when shaped) the buffer holds
// oneDNN's workspace instead, the argmax within each window, sized as
// oneDNN asks (a byte per output for windows under 256 elements); per-call
// scratch goes in the shared workspace (util/parallel.hpp).  Backward never reads the optional mask
// top.  Backward
// reads bottom data only for STOCHASTIC in TEST (gradient of the weighted
// average); top data never.  AVE with engine CUDNN in a USE_CUDA build
// declares that backward reads bottom and top data, whichever device
// runs, since cuDNN's backward takes both.
// Not in place.
#ifndef CAFFE_POOLING_LAYER_HPP_
#define CAFFE_POOLING_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/util/dnnl_pool.hpp"
#include "caffe/util/scratch.hpp"

namespace caffe {

struct PoolGeometry;  // pooling_kernels.hpp
template <typename Dtype, typename Mask>
struct MaxPoolForward;

template <typename Dtype>
class PoolingLayer : public Layer<Dtype> {
 public:
  explicit PoolingLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Pooling"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  // MAX can also output its argmax mask.
  int MaxTopBlobs() const override {
    return (this->layer_param_.pooling_param().pool() ==
            PoolingParameter_PoolMethod_MAX)
               ? 2
               : 1;
  }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = IsStochasticTest() ? kReadsBottomData : kReadsNothing;
    if (CudnnRequested()) c.backward_reads = kReadsBottomData | kReadsTopData;
    // STOCHASTIC's draws count in int (caffe_rng_uniform): it refuses.
    c.counts_over_int_max = this->layer_param_.pooling_param().pool() !=
                            PoolingParameter_PoolMethod_STOCHASTIC;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(mask_.count64()) * sizeof(int) +
           static_cast<size_t>(uniform_.count64()) * sizeof(Dtype);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(mask_, kept);
  }
  // True when the last Reshape chose the oneDNN engine.
  bool UsesDnnl() const { return dnnl_ != nullptr; }
  // True when the last Reshape chose the cuDNN engine (GPU mode only).
  bool UsesCudnn() const { return cudnn_ != nullptr; }
  SyncedMemory* ScratchMemory() const override { return scratch_.get(); }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;

 private:
  // The GPU runs MAX (one top), AVE and STOCHASTIC; the rest runs the CPU
  // code.
  bool RunsOnGpu(const vector<Blob<Dtype>*>& top) const;
  // The shapes the bodies of pooling_kernels.hpp take.
  PoolGeometry Geometry() const;
  // STOCHASTIC's forward on either device (the bodies of
  // pooling_kernels.hpp; training draws its uniforms on the host).
  // MAX and AVE on either device: the bodies of pooling_kernels.hpp, one
  // output each (forward) or one input element each (backward, a gather;
  // MAX's, a scatter per plane on the CPU, also serves STOCHASTIC in
  // training).
  void ForwardByBodies(bool gpu, const vector<Blob<Dtype>*>& bottom,
                       const vector<Blob<Dtype>*>& top);
  void BackwardByBodies(bool gpu, const vector<Blob<Dtype>*>& top,
                        const vector<Blob<Dtype>*>& bottom);
  // MAX's and STOCHASTIC's training backward for either argmax form
  // (pooling_kernels.hpp): a gather on the GPU, a scatter per plane on the
  // CPU, the same bits.
  template <typename Mask>
  void MaxForwardByBodies(bool gpu, const MaxPoolForward<Dtype, Mask>& body);
  template <typename Mask>
  void MaxBackwardByBodies(bool gpu, const Mask* mask, const Dtype* dy,
                           Dtype* dx);
  // How many windows an input element falls in, at most (a gather's work).
  long WindowsPerInput() const {
    return static_cast<long>((kernel_h_ + stride_h_ - 1) / stride_h_) *
           ((kernel_w_ + stride_w_ - 1) / stride_w_);
  }
  void StochasticForward(bool gpu, const vector<Blob<Dtype>*>& bottom,
                         const vector<Blob<Dtype>*>& top);
  bool IsStochasticTest() const {
    return this->layer_param_.pooling_param().pool() ==
               PoolingParameter_PoolMethod_STOCHASTIC &&
           this->phase_ == TEST;
  }
  // MAX keeps its argmax for backward, or for the mask top; where neither
  // will read it (a forward-only net) it keeps none.
  bool UsesMask() const {
    const PoolingParameter_PoolMethod pool =
        this->layer_param_.pooling_param().pool();
    if (pool == PoolingParameter_PoolMethod_MAX)
      return this->backward_runs() || mask_top_;
    return pool == PoolingParameter_PoolMethod_STOCHASTIC &&
           this->phase_ != TEST;
  }

  int kernel_h_ = 0, kernel_w_ = 0;
  int stride_h_ = 1, stride_w_ = 1;
  int pad_h_ = 0, pad_w_ = 0;
  int num_ = 0, channels_ = 0;
  int height_ = 0, width_ = 0;
  int pooled_height_ = 0, pooled_width_ = 0;
  bool global_pooling_ = false;
  bool mask_top_ = false;  // MAX's second top, the argmax (last Reshape)
  // The argmax per output element (pooling_kernels.hpp): with
  // compact_mask_, a byte each (the offset within the window), packed four
  // to an int; otherwise the index within its H x W plane.
  Blob<int> mask_;
  bool compact_mask_ = false;
  // STOCHASTIC in training: the uniform draw per output of the last
  // forward (on the host first, so both devices choose the same elements).
  Blob<Dtype> uniform_;

  // Chooses the engine for the current shapes (end of Reshape).
  void SelectEngine(const vector<Blob<Dtype>*>& top);
  // engine: CUDNN for AVE in a USE_CUDA build: what the memory contract
  // is declared from (the device may change after planning).
  bool CudnnRequested() const;
  // GPU mode: chooses cuDNN for the current shapes where requested and
  // exact (one top, cuDNN's output size is the layer's).
  void SelectCudnn(const vector<Blob<Dtype>*>& top);
  // The cuDNN engine's passes (pooling_layer.cpp, so that no cuDNN call
  // sits in the .cu file); called only when cudnn_ is set.
#ifdef USE_CUDA
  void CudnnForward(const vector<Blob<Dtype>*>& bottom,
                    const vector<Blob<Dtype>*>& top);
  void CudnnBackward(const vector<Blob<Dtype>*>& top,
                     const vector<Blob<Dtype>*>& bottom);
#endif
  std::shared_ptr<void> cudnn_;  // CudnnPool<Dtype>; no cuDNN in this header
  vector<int> cudnn_key_;        // the input shape cudnn_ was decided for
  std::shared_ptr<DnnlPool> dnnl_;
  // oneDNN's scratchpad (Layer::ScratchMemory), null when none.
  Scratch scratch_;
  vector<std::shared_ptr<DnnlPool> > dnnl_cache_;
  vector<DnnlPoolShape> dnnl_declined_;
};

}  // namespace caffe

#endif  // CAFFE_POOLING_LAYER_HPP_
