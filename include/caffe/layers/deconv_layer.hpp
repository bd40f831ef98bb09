// deconv_layer.hpp: transposed convolution ("Deconvolution"): the forward
// pass is the backward-data pass of a convolution and vice versa.
//
// Contract: bottom i (N... x C x spatial...) -> top i
// (N... x num_output x output spatial...), with per spatial axis
//   output = stride * (input - 1) + dilation * (kernel - 1) + 1 - 2 * pad.
// The weight is C x (num_output / group) x kernel... (input channels first,
// as in Caffe).  Parameters and shared column workspace: see
// base_conv_layer.hpp.  Backward reads bottom data (weight gradient), never
// top data; not in place.
#ifndef CAFFE_DECONV_LAYER_HPP_
#define CAFFE_DECONV_LAYER_HPP_

#include <vector>

#include "caffe/layers/base_conv_layer.hpp"

namespace caffe {

template <typename Dtype>
class DeconvolutionLayer : public BaseConvolutionLayer<Dtype> {
 public:
  explicit DeconvolutionLayer(const LayerParameter& param)
      : BaseConvolutionLayer<Dtype>(param) {}
  const char* type() const override { return "Deconvolution"; }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  bool reverse_dimensions() override { return true; }
  void compute_output_shape() override;

 private:
  // One body for both devices: the base class's GEMM helpers on the host
  // or on the GPU (2-D im2col there; other shapes run the CPU code).
  DECLARE_ON_BODIES;
};

}  // namespace caffe

#endif  // CAFFE_DECONV_LAYER_HPP_
