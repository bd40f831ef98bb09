// hdf5_output_layer.hpp: "HDF5Output" writes its two bottoms to an HDF5 file
// (features and labels extracted by a net).
//
// Contract: hdf5_output_param.file_name is created (truncated) at setup.
// Each Forward appends bottom[0] to dataset "data" and bottom[1] to dataset
// "label" along axis 0 (both need the same num).  Blobs of up to 4 axes are
// stored in Caffe's legacy N x C x H x W form (an N x D bottom becomes
// N x D x 1 x 1), so files match Caffe 1.0's; more axes are stored as is.
// Caffe 1.0 could only write one batch per file; appending lets a test pass
// of several batches land in one file, and a single Forward writes exactly
// what Caffe wrote.  The file is flushed after each Forward and closed by the
// destructor.  No tops.  The layer adds nothing to the loss, so Backward
// sets the bottom diffs it is asked for to zero (Caffe left them unwritten,
// which only equals zero while nobody reuses diff memory) and reads nothing.
#ifndef CAFFE_LAYERS_HDF5_OUTPUT_LAYER_HPP_
#define CAFFE_LAYERS_HDF5_OUTPUT_LAYER_HPP_

#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/util/hdf5.hpp"

#define HDF5_DATA_DATASET_NAME "data"
#define HDF5_DATA_LABEL_NAME "label"

namespace caffe {

template <typename Dtype>
class HDF5OutputLayer : public Layer<Dtype> {
 public:
  explicit HDF5OutputLayer(const LayerParameter& param)
      : Layer<Dtype>(param), file_opened_(false), file_id_(-1) {}
  ~HDF5OutputLayer() override;
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {}

  const char* type() const override { return "HDF5Output"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 0; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }
  bool AllowForceBackward(const int bottom_index) const override {
    return false;
  }

  inline std::string file_name() const { return file_name_; }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  virtual void SaveBlobs();

  bool file_opened_;
  std::string file_name_;
  hid_t file_id_;
  Blob<Dtype> data_blob_;
  Blob<Dtype> label_blob_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_HDF5_OUTPUT_LAYER_HPP_
