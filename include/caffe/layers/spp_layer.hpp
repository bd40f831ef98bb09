// SPPLayer ("SPP"): spatial pyramid pooling -- pools an N x C x H x W input
// into a fixed number of bins whatever H and W are, so images of any size
// can feed a fully connected layer.
//
// Contract (Caffe 1.0): spp_param.pyramid_height (> 0) and pool (MAX, AVE or
// STOCHASTIC).  Level l (0 <= l < pyramid_height) pools with 2^l bins per
// side: kernel = ceil(H / 2^l), stride = kernel, pad = (kernel * 2^l - H + 1)
// / 2 (likewise for W), under Pooling's rules (so the bins per side can
// differ from 2^l, and a pad that reaches the kernel size is an error, as
// in Caffe).  With pyramid_height 1 the top is the single pooling's
// N x C x PH x PW output.  Otherwise each level's output is flattened to
// N x (C * PH_l * PW_l) and the levels are concatenated along axis 1, level
// 0 first: the top is N x sum_l C * PH_l * PW_l.
//
// As in Caffe, the inner pooling layers get a fresh LayerParameter, so they
// always run in the TRAIN phase: STOCHASTIC samples even in a TEST net.
// Their backward reads only their argmax masks, so the layer declares no
// data reads.  Internal memory (InternalBytes): the per-level pooled blobs
// (data and diff), one bottom-sized diff buffer used to add the levels'
// gradients, and the pooling layers' masks.  Not in place.
#ifndef CAFFE_SPP_LAYER_HPP_
#define CAFFE_SPP_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SPPLayer : public Layer<Dtype> {
 public:
  explicit SPPLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "SPP"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }
  size_t InternalBytes() const override;

  // The Pooling parameter Caffe uses for one pyramid level of an
  // height x width input.
  static LayerParameter PoolingParamForLevel(int level, int height, int width,
                                             const SPPParameter& spp_param);

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;

  // (Re)creates the pooling layers for the current input size.
  void BuildLevels(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top);

  int pyramid_height_ = 0;
  int height_ = -1, width_ = -1;  // input size the pooling layers fit
  vector<shared_ptr<Layer<Dtype> > > pooling_layers_;
  // Per level: the pooled output (unused with pyramid_height 1).
  vector<shared_ptr<Blob<Dtype> > > pooled_;
  // Shares the bottom's data; its diff receives levels 1.. in backward.
  Blob<Dtype> scratch_;
  // Per level: C * PH * PW, and where the level starts in a top row.
  vector<int> level_dim_, level_offset_;
};

}  // namespace caffe

#endif  // CAFFE_SPP_LAYER_HPP_
