// EmbedLayer ("Embed"): a lookup table, the one-hot InnerProduct.
//
// Contract: bottom[0] holds integer indices in [0, input_dim) stored as
// Dtype, of any shape S; top[0] has shape S + [num_output] and row i is
// W[index_i] (+ b).  The weight blob is input_dim x num_output, followed by a
// num_output bias when bias_term (Caffe 1.0's layout, so .caffemodel files
// load unchanged).  An index that is negative, too large or not an integer
// throws caffe::Error naming the layer and the index.  Indices are not
// differentiable: Backward writes only the parameter diffs (it reads the
// indices to know which rows to update) and AllowForceBackward is false.
#ifndef CAFFE_EMBED_LAYER_HPP_
#define CAFFE_EMBED_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class EmbedLayer : public Layer<Dtype> {
 public:
  explicit EmbedLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Embed"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AllowForceBackward(const int bottom_index) const override {
    return false;
  }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData;
    return c;
  }
  size_t InternalBytes() const override {
    return static_cast<size_t>(indices_.count()) * sizeof(int);
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_LAUNCH_POLICY_BODIES;
  DECLARE_GPU_FORWARD_BACKWARD;

  // Validates bottom[0][i] and returns it as a row index.
  int IndexAt(const Blob<Dtype>& bottom, int i) const;
  // Validates every index on the host and copies them into indices_, which
  // the bodies (embed_compute.hpp) read on either device.
  void CheckIndices(const Blob<Dtype>& bottom);

  int M_ = 0;  // indices looked up
  int K_ = 0;  // input_dim: rows of the table
  int N_ = 0;  // num_output: width of a row
  bool bias_term_ = true;
  Blob<int> indices_;  // the checked indices of the last call
};

}  // namespace caffe

#endif  // CAFFE_EMBED_LAYER_HPP_
