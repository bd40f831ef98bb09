// image_data_layer.hpp: "ImageData" reads image files named by a list file.
//
// Contract (Caffe 1.0): image_data_param.source is a text file of
// "<path> <label>" lines (split at the last space); each path is read from
// root_folder + path with OpenCV, as colour (3 channels, BGR) or, with
// is_color: false, gray (1 channel), resized to new_height x new_width when
// both are > 0 (both or neither), then transformed by transform_param.
// top[0] is batch_size x C x H x W, top[1] the batch_size labels; both tops
// are required.  Lines are used in order, wrapping around; shuffle permutes
// them at setup and at every wrap; rand_skip > 0 starts at a random line in
// [0, rand_skip).  Each batch is shaped by its first image; images of
// another size in the same batch throw.  Batches are prefetched on a
// background thread.  A missing or undecodable image throws caffe::Error
// naming the list file, the line and the image.  Backward reads nothing.
// In a data-parallel job (Caffe::solver_count() N > 1) rank r reads lines
// [t*N*B + r*B, t*N*B + (r+1)*B) of the line stream at batch t; the
// shuffle generator is seeded at setup, the same on every rank, so all
// ranks walk one global order.  The layer needs OpenCV: in a build without
// it (USE_OPENCV=OFF) the type stays registered, and SetUp throws
// caffe::Error saying so.
#ifndef CAFFE_LAYERS_IMAGE_DATA_LAYER_HPP_
#define CAFFE_LAYERS_IMAGE_DATA_LAYER_HPP_

#include <random>
#include <string>
#include <vector>

#include "caffe/layers/base_data_layer.hpp"
#include "caffe/util/image_io.hpp"

namespace caffe {

template <typename Dtype>
class ImageDataLayer : public BasePrefetchingDataLayer<Dtype> {
 public:
  explicit ImageDataLayer(const LayerParameter& param)
      : BasePrefetchingDataLayer<Dtype>(param), lines_id_(0) {}
  ~ImageDataLayer() override;
  void DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                      const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "ImageData"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int ExactNumTopBlobs() const override { return 2; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

 protected:
  void load_batch(Batch<Dtype>* batch) override;
  void ShuffleImages();
  // Moves to the next line, wrapping around (and reshuffling) at the end.
  void NextLine();
  void SkipLines(uint64_t n);
#ifdef USE_OPENCV
  // Reads lines_[lines_id_], naming list file, line and image on failure.
  cv::Mat ReadCurrentImage();
#endif

  vector<ImageListEntry> lines_;
  size_t lines_id_;
  std::mt19937 shuffle_rng_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_IMAGE_DATA_LAYER_HPP_
