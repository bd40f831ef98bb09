// crop_layer.hpp: crops bottom[0] to the shape of bottom[1] ("Crop").
//
// Contract (Caffe semantics): both bottoms have the same number of axes.
// Axes before crop_param.axis (default 2; may be negative) keep bottom[0]'s
// size; axes from it on take bottom[1]'s size, starting at offset: no offset
// means 0, one offset applies to every cropped axis, otherwise exactly one
// offset per cropped axis.  Every crop must fit inside bottom[0].
// bottom[1] only supplies the shape: it gets a zero gradient.
// Backward reads neither bottom nor top data; not in place.
#ifndef CAFFE_CROP_LAYER_HPP_
#define CAFFE_CROP_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class CropLayer : public Layer<Dtype> {
 public:
  explicit CropLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Crop"; }
  int ExactNumBottomBlobs() const override { return 2; }
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

 private:
  // Copies the cropped window between the big (bottom[0]-shaped) and small
  // (top-shaped) buffers on the chosen device; to_small selects the
  // direction.
  void CopyWindow(bool gpu, const vector<int>& big_shape,
                  const vector<int>& small_shape, Dtype* big, Dtype* small,
                  bool to_small) const;

  vector<int> offsets_;
};

}  // namespace caffe

#endif  // CAFFE_CROP_LAYER_HPP_
