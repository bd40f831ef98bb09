// Im2colLayer ("Im2col"): exposes convolution's patch rearrangement as a
// layer: each output position gets the column of every input value its
// kernel window covers.
//
// Contract (Caffe 1.0): reads convolution_param's kernel_size / kernel_h,w,
// stride / stride_h,w, pad / pad_h,w, dilation, axis (the channel axis; the
// axes after it are spatial, at least one) and force_nd_im2col; num_output,
// group and the fillers are ignored.  For a bottom [outer..., C, S1..Sk] the
// top is [outer..., C * prod(kernel), O1..Ok] with
// Oi = (Si + 2 * pad_i - (dilation_i * (kernel_i - 1) + 1)) / stride_i + 1;
// channel c, kernel offset k is top channel c * prod(kernel) + k (offsets
// row-major), padding reads as 0.  Backward is col2im (the adjoint) and reads
// no data.  Not in place.
#ifndef CAFFE_IM2COL_LAYER_HPP_
#define CAFFE_IM2COL_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class Im2colLayer : public Layer<Dtype> {
 public:
  explicit Im2colLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Im2col"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;
  // One image's im2col (to_columns) or col2im on the given device.
  void Columns(bool gpu, bool to_columns, const Dtype* from, Dtype* to,
               const Blob<Dtype>& bottom, const Blob<Dtype>& top) const;

  // Whether the 2-D routines apply (two spatial axes, not forced N-D).
  bool Use2D() const { return !force_nd_im2col_ && num_spatial_axes_ == 2; }

  vector<int> kernel_shape_, stride_, pad_, dilation_;
  int channel_axis_ = 1;
  int num_spatial_axes_ = 0;
  int num_ = 0;         // images: product of the axes before channel_axis_
  int bottom_dim_ = 0;  // values per image in the bottom
  int top_dim_ = 0;     // values per image in the top
  int channels_ = 0;
  bool force_nd_im2col_ = false;
};

}  // namespace caffe

#endif  // CAFFE_IM2COL_LAYER_HPP_
