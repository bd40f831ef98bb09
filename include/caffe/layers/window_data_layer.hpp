// window_data_layer.hpp: "WindowData" samples foreground and background
// windows of images for R-CNN style detection fine-tuning.
//
// Contract (Caffe 1.0): window_data_param.source is a window file of
// records
//     # <image_index>
//     <image path>            (read from root_folder + path)
//     <channels> <height> <width>
//     <num_windows>
//     <class> <overlap> <x1> <y1> <x2> <y2>     (num_windows lines)
// with image_index counting 0, 1, 2, ... and inclusive pixel corners.
// Windows with overlap >= fg_threshold are foreground (class must be > 0);
// those with overlap < bg_threshold are background (class and overlap set
// to 0); others are unused.  Each batch of batch_size windows holds
// batch_size - int(batch_size * fg_fraction) background windows, then the
// foreground ones, each drawn uniformly at random (with replacement).
// A window, grown so that context_pad pixels of the crop_size x crop_size
// output are context (crop_mode "square" also makes it square), is cut out
// of the colour image, clipped to the image with the outside left 0, warped
// to the output size, mirrored with probability 1/2 when mirror is set, and
// written as (pixel - mean) * scale.  transform_param supplies crop_size
// (required), mirror and mean_file (centred crop of the mean) or
// mean_value; scale is window_data_param.scale unless transform_param sets
// one.  cache_images keeps the compressed files in memory.  top[0] is
// batch_size x 3 x crop_size x crop_size, top[1] the labels.  Batches are
// prefetched; errors (bad window file, missing or undecodable image, window
// outside its image) throw caffe::Error naming the file.  Backward reads
// nothing.  The layer needs OpenCV: in a build without it (USE_OPENCV=OFF)
// the type stays registered, and SetUp throws caffe::Error saying so.
#ifndef CAFFE_LAYERS_WINDOW_DATA_LAYER_HPP_
#define CAFFE_LAYERS_WINDOW_DATA_LAYER_HPP_

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "caffe/layers/base_data_layer.hpp"

#ifdef USE_OPENCV
namespace cv {
class Mat;
}  // namespace cv
#endif

namespace caffe {

template <typename Dtype>
class WindowDataLayer : public BasePrefetchingDataLayer<Dtype> {
 public:
  explicit WindowDataLayer(const LayerParameter& param)
      : BasePrefetchingDataLayer<Dtype>(param), cache_images_(false),
        has_mean_file_(false), has_mean_values_(false) {}
  ~WindowDataLayer() override;
  void DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                      const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "WindowData"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int ExactNumTopBlobs() const override { return 2; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

  // Fields of one window.
  enum WindowField { IMAGE_INDEX, LABEL, OVERLAP, X1, Y1, X2, Y2, NUM };

 protected:
  unsigned int PrefetchRand();
  void load_batch(Batch<Dtype>* batch) override;
#ifdef USE_OPENCV
  // The colour image holding window `window`.
  cv::Mat LoadImage(int image_index);
#endif

  std::mt19937 prefetch_rng_;
  // Path (with root_folder) and {channels, height, width} per image.
  vector<std::pair<string, vector<int> > > image_database_;
  vector<vector<float> > fg_windows_;
  vector<vector<float> > bg_windows_;
  Blob<Dtype> data_mean_;
  vector<Dtype> mean_values_;
  bool cache_images_;
  // Compressed file bytes per image when cache_images is set.
  vector<std::pair<string, Datum> > image_database_cache_;
  bool has_mean_file_;
  bool has_mean_values_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_WINDOW_DATA_LAYER_HPP_
