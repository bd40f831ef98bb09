// hdf5_data_layer.hpp: "HDF5Data" reads batches from HDF5 files.
//
// Contract (Caffe 1.0): hdf5_data_param.source is a text file listing .h5
// files (whitespace separated; relative paths are relative to the working
// directory).  Each top's name is the dataset read from every file; all
// datasets of a file have the same length along axis 0, and the other axes
// must agree across files.  Each Forward copies hdf5_data_param.batch_size
// rows into the tops (batch_size x the dataset's other axes), continuing
// into the next file and wrapping around after the last.  With shuffle the
// file order is permuted at setup and at every wrap, and the row order of
// each file whenever it is (re)entered, using Caffe's random stream.  One
// file is held in memory at a time.  Errors name the file and the dataset.
// Backward does nothing and reads nothing.
// In a data-parallel job (Caffe::solver_count() N > 1) rank r reads rows
// [t*N*B + r*B, t*N*B + (r+1)*B) of the row stream at batch t.  Shuffles
// draw from the layer's own generator, seeded from Caffe's stream at
// setup, when every rank's stream is the same: all ranks walk one order.
#ifndef CAFFE_LAYERS_HDF5_DATA_LAYER_HPP_
#define CAFFE_LAYERS_HDF5_DATA_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/util/hdf5.hpp"

namespace caffe {

template <typename Dtype>
class HDF5DataLayer : public Layer<Dtype> {
 public:
  explicit HDF5DataLayer(const LayerParameter& param)
      : Layer<Dtype>(param), num_files_(0), current_file_(0),
        current_row_(0), offset_(0) {}
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  // Tops keep the shape set up from the first file.
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {}

  const char* type() const override { return "HDF5Data"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
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
                    const vector<Blob<Dtype>*>& bottom) override {}
  // Loads every top's dataset from filename into hdf_blobs_.
  virtual void LoadHDF5FileData(const char* filename);
  // Advances to the next row, moving on to the next file at the end.
  void Next();
  void SkipRows(uint64_t n);

  vector<string> hdf_filenames_;
  unsigned int num_files_;
  unsigned int current_file_;
  hsize_t current_row_;
  vector<shared_ptr<Blob<Dtype> > > hdf_blobs_;
  vector<unsigned int> data_permutation_;
  vector<unsigned int> file_permutation_;
  uint64_t offset_;
  // Shape of one row of each top (all axes but the first), fixed by the
  // first file loaded.
  vector<vector<int> > row_shapes_;
  // Shuffles draw from here (seeded from Caffe's stream at setup), not
  // from Caffe's stream, which differs by rank while training.
  std::unique_ptr<Caffe::RNG> shuffle_rng_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_HDF5_DATA_LAYER_HPP_
