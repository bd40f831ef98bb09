// lrn_layer.hpp: local response normalization ("LRN").
//
// Contract (Caffe 1.0 semantics): bottom and top are N x C x H x W (exactly
// 4 axes); top = x * scale^-beta with, for local_size n (odd, default 5),
//  * ACROSS_CHANNELS: scale = k + alpha / n * sum of x^2 over the n channels
//    centred on the element (channels outside [0, C) count as 0);
//  * WITHIN_CHANNEL: scale = 1 + alpha / n^2 * sum of x^2 over the n x n
//    spatial window centred on the element, zero padded by (n - 1) / 2.
//    Caffe builds this from Pooling(AVE) and Power(shift 1) sublayers, so
//    k is NOT used here; this layer computes the same thing directly.
//
// Threads: Forward and Backward run in parallel (util/parallel.hpp) over
// images and ranges of positions; results do not depend on the thread count.
// GPU: ACROSS_CHANNELS runs lrn_kernels.hpp's bodies, one thread per
// spatial position, with the CPU loops' results; WITHIN_CHANNEL runs its
// CPU code.  With `engine: CUDNN` ACROSS_CHANNELS runs on cuDNN in GPU
// mode (util/cudnn_lrn.hpp) where cuDNN takes the parameters (local_size
// at most 16); DEFAULT stays on the bodies the CPU shares.
//
// Memory: keeps scale (one value per element, InternalBytes()) from Forward
// for Backward.  Backward reads bottom data (it recomputes top from x and
// scale instead of reading top data); not in place.  Where engine CUDNN
// applies (USE_CUDA build, ACROSS_CHANNELS, parameters cuDNN takes) it
// declares reads of bottom and top data, whichever device runs, and in GPU
// mode keeps no scale (cuDNN's backward reads y instead).
#ifndef CAFFE_LRN_LAYER_HPP_
#define CAFFE_LRN_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class LRNLayer : public Layer<Dtype> {
 public:
  explicit LRNLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "LRN"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // True when the last Reshape chose cuDNN (GPU mode, engine CUDNN).
  bool UsesCudnn() const { return cudnn_ != nullptr; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
    if (CudnnRequested()) c.backward_reads = kReadsBottomData | kReadsTopData;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(scale_.count()) * sizeof(Dtype);
  }
  void KeptMemory(vector<SyncedMemory*>* kept) const override {
    this->KeepBlobMemory(scale_, kept);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;

 private:
  // out = sum of in over each element's window (across channels or within
  // the channel, zero padded), for one image of C x H x W.
  void WindowSum(const Dtype* in, Dtype* out) const;

  // engine CUDNN where cuDNN can run it (see the memory note above): what
  // the contract is declared from, whatever the device.
  bool CudnnRequested() const;
  // GPU mode: the engine for the current shape, or null (Reshape); its
  // passes live in lrn_layer.cpp so that no cuDNN call sits in the .cu.
  void SelectCudnn();
#ifdef USE_CUDA
  void CudnnForward(const vector<Blob<Dtype>*>& bottom,
                    const vector<Blob<Dtype>*>& top);
  void CudnnBackward(const vector<Blob<Dtype>*>& top,
                     const vector<Blob<Dtype>*>& bottom);
#endif
  std::shared_ptr<void> cudnn_;  // CudnnLrn<Dtype>

  bool across_channels_ = true;
  int size_ = 0;
  int pre_pad_ = 0;
  Dtype alpha_ = 0, beta_ = 0, k_ = 0;
  int num_ = 0, channels_ = 0, height_ = 0, width_ = 0;
  // k + alpha / n * window sum (ACROSS) or 1 + alpha / n^2 * window sum
  // (WITHIN), per element; kept from Forward for Backward.
  Blob<Dtype> scale_;
};

}  // namespace caffe

#endif  // CAFFE_LRN_LAYER_HPP_
