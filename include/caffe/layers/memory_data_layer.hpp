// memory_data_layer.hpp: "MemoryData" serves batches from arrays the host
// program hands over (Python's set_input_arrays, C++ Reset / Add*Vector).
//
// Contract (Caffe 1.0): memory_data_param.batch_size, channels, height and
// width (all > 0) fix the tops: top[0] batch_size x C x H x W, top[1] the
// batch_size labels.  Reset(data, labels, n) points the layer at n items
// (n a multiple of batch_size) owned by the caller, who keeps them alive;
// they are served as they are, without transform_param.  AddDatumVector /
// AddMatVector transform their items with transform_param into a buffer
// the layer owns; new data cannot be added until every batch of the
// previous addition has been served.  Each Forward serves the next batch,
// wrapping around.  Unlike Caffe, whose tops alias the arrays, Forward
// copies the batch into the tops, so the net's memory planner may own
// them; writes to the arrays before a Forward are still seen.  Forward
// before any data throws.  Backward reads nothing.  AddMatVector exists
// only in builds with OpenCV (USE_OPENCV); without it, an encoded Datum
// given to AddDatumVector throws caffe::Error saying so.
#ifndef CAFFE_LAYERS_MEMORY_DATA_LAYER_HPP_
#define CAFFE_LAYERS_MEMORY_DATA_LAYER_HPP_

#include <vector>

#include "caffe/layers/base_data_layer.hpp"

#ifdef USE_OPENCV
namespace cv {
class Mat;
}  // namespace cv
#endif

namespace caffe {

template <typename Dtype>
class MemoryDataLayer : public BaseDataLayer<Dtype> {
 public:
  explicit MemoryDataLayer(const LayerParameter& param)
      : BaseDataLayer<Dtype>(param), batch_size_(0), channels_(0),
        height_(0), width_(0), size_(0), data_(nullptr), labels_(nullptr),
        n_(0), pos_(0), has_new_data_(false) {}
  void DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                      const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "MemoryData"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int ExactNumTopBlobs() const override { return 2; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

  virtual void AddDatumVector(const vector<Datum>& datum_vector);
#ifdef USE_OPENCV
  virtual void AddMatVector(const vector<cv::Mat>& mat_vector,
                            const vector<int>& labels);
#endif
  // data: n x C x H x W values, labels: n values; not copied.
  void Reset(Dtype* data, Dtype* labels, int n);
  void set_batch_size(int new_size);

  int batch_size() const { return batch_size_; }
  int channels() const { return channels_; }
  int height() const { return height_; }
  int width() const { return width_; }

 protected:
  // The shared checks and buffer sizing of AddDatumVector/AddMatVector
  // (`what` names an item in errors), and pointing the layer at the
  // transformed result.
  void PrepareAdded(int num, const char* what);
  void ServeAdded(int num);
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;

  int batch_size_, channels_, height_, width_, size_;
  Dtype* data_;
  Dtype* labels_;
  int n_;
  int pos_;
  Blob<Dtype> added_data_;
  Blob<Dtype> added_label_;
  bool has_new_data_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_MEMORY_DATA_LAYER_HPP_
