// conv_layer.hpp: N-D convolution ("Convolution"), computed as im2col + GEMM.
//
// Contract: bottom i (N... x C x spatial...) -> top i
// (N... x num_output x output spatial...), with per spatial axis
//   output = (input + 2 * pad - (dilation * (kernel - 1) + 1)) / stride + 1
// (integer division, as Caffe; an empty output is an error).  Each of the
// group groups of num_output / group filters sees channels / group inputs.
// Parameters and shared column workspace: see base_conv_layer.hpp.
// Backward reads bottom data (weight gradient), never top data; not in place.
#ifndef CAFFE_CONV_LAYER_HPP_
#define CAFFE_CONV_LAYER_HPP_

#include <vector>

#include "caffe/layers/base_conv_layer.hpp"

namespace caffe {

#ifdef USE_CUDA
template <typename Dtype>
class CudnnConvBatch;  // util/cudnn_conv_batch.hpp; no cuDNN in this header
#endif

template <typename Dtype>
class ConvolutionLayer : public BaseConvolutionLayer<Dtype> {
 public:
  explicit ConvolutionLayer(const LayerParameter& param)
      : BaseConvolutionLayer<Dtype>(param) {}
  const char* type() const override { return "Convolution"; }
  // Image offsets are 64-bit on every path; cuDNN runs such batches in
  // chunks of images, oneDNN steps aside for im2col.
  MemoryContract Memory() const override {
    MemoryContract c = BaseConvolutionLayer<Dtype>::Memory();
    c.counts_over_int_max = true;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  bool reverse_dimensions() override { return false; }
  void compute_output_shape() override;
  // On the GPU, cuDNN's workspace when it runs the layer (its algorithms
  // are chosen at Reshape, so the plan holds their workspace).
  size_t ScratchBytes(bool gpu) override;

 private:
  // GPU mode: the cuDNN engine (util/cudnn_conv_batch.hpp) for the current
  // shapes, made on first use per shape; false (the im2col path) for N-D
  // convolution, engine: CAFFE, or when cuDNN offers no deterministic
  // algorithm within the workspace limit.  USE_CUDA builds only.
  bool UseCudnn();
#ifdef USE_CUDA
  CudnnConvBatch<Dtype>* Cudnn() const;  // cudnn_, typed; after UseCudnn()
#endif
  // CudnnConvBatch<Dtype> (in int-sized chunks of images for batches past
  // INT_MAX elements); no cuDNN in this header.
  std::shared_ptr<void> cudnn_;
  vector<int> cudnn_key_;        // the shapes cudnn_ was made for
};

}  // namespace caffe

#endif  // CAFFE_CONV_LAYER_HPP_
