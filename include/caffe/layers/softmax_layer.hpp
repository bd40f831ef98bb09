// SoftmaxLayer ("Softmax"): normalized exponentials along one axis.
//
// Contract: softmax_param.axis (default 1, may be negative) is the class
// axis; the top has the bottom's shape and each slice along that axis sums
// to one.  The maximum is subtracted first so large inputs do not overflow.
// Backward reads only the top data (the probabilities), so it may run in
// place.  The kernel bodies (softmax_kernels.hpp) run on the CPU's
// parallel loop and, in a CUDA build, on the GPU (softmax_layer.cu); in GPU
// mode `engine: CUDNN` runs cuDNN's softmax instead (util/cudnn_softmax.hpp,
// the same reads).  DEFAULT stays on the bodies, which the CPU shares.
#ifndef CAFFE_SOFTMAX_LAYER_HPP_
#define CAFFE_SOFTMAX_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class SoftmaxLayer : public Layer<Dtype> {
 public:
  explicit SoftmaxLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Softmax"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsTopData;
    c.in_place = true;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;

  DECLARE_GPU_FORWARD_BACKWARD;

 public:
  // True when the last Reshape chose cuDNN (GPU mode, engine CUDNN).
  bool UsesCudnn() const { return cudnn_ != nullptr; }

 protected:
  // GPU mode with engine CUDNN: the engine for the current shape (set by
  // Reshape, else null); its passes live in softmax_layer.cpp so that no
  // cuDNN call sits in the .cu file.
  void SelectCudnn(int channels);
#ifdef USE_CUDA
  void CudnnForward(const vector<Blob<Dtype>*>& bottom,
                    const vector<Blob<Dtype>*>& top);
  void CudnnBackward(const vector<Blob<Dtype>*>& top,
                     const vector<Blob<Dtype>*>& bottom);
#endif
  std::shared_ptr<void> cudnn_;  // CudnnSoftmax<Dtype>

  int softmax_axis_ = 1;
  int outer_num_ = 0;  // product of the axes before softmax_axis_
  int inner_num_ = 0;  // product of the axes after softmax_axis_
};

}  // namespace caffe

#endif  // CAFFE_SOFTMAX_LAYER_HPP_
