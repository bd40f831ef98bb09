#include "caffe/layers/hdf5_data_layer.hpp"

#include <algorithm>
#include <climits>
#include <fstream>
#include <numeric>

#include "caffe/util/hdf5.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
void HDF5DataLayer<Dtype>::LoadHDF5FileData(const char* filename) {
  DLOG(INFO) << "Loading HDF5 file: " << filename;
  const string& name = this->layer_param_.name();
  try {
    hdf5_check_file(filename, {this->layer_param_.top().begin(),
                               this->layer_param_.top().end()});
  } catch (const Error& e) {
    throw Error("HDF5Data layer '" + name + "': " + e.what());
  }
  Hdf5ReadFile file(filename);
  CAFFE_CHECK(file.ok()) << "HDF5Data layer '" << name
                             << "': failed opening HDF5 file '" << filename
                             << "'";
  const int top_size = this->layer_param_.top_size();
  hdf_blobs_.resize(top_size);
  for (int i = 0; i < top_size; ++i) {
    hdf_blobs_[i].reset(new Blob<Dtype>());
    // Each dataset needs at least the row axis.
    hdf5_load_nd_dataset(file.id(), this->layer_param_.top(i).c_str(), 1,
                         INT_MAX, hdf_blobs_[i].get(), true);
  }

  const int num = hdf_blobs_[0]->shape(0);
  CAFFE_CHECK_GT(num, 0) << "HDF5Data layer '" << name << "': dataset '"
                         << this->layer_param_.top(0) << "' in '" << filename
                         << "' has no rows";
  for (int i = 1; i < top_size; ++i) {
    CAFFE_CHECK_EQ(hdf_blobs_[i]->shape(0), num)
        << "HDF5Data layer '" << name << "': in '" << filename
        << "', dataset '" << this->layer_param_.top(i) << "' has "
        << hdf_blobs_[i]->shape(0) << " rows but dataset '"
        << this->layer_param_.top(0) << "' has " << num;
  }
  // Later files must fit the tops shaped from the first one.
  if (row_shapes_.empty()) {
    for (int i = 0; i < top_size; ++i) {
      const vector<int>& s = hdf_blobs_[i]->shape();
      row_shapes_.emplace_back(s.begin() + 1, s.end());
    }
  } else {
    for (int i = 0; i < top_size; ++i) {
      const vector<int>& s = hdf_blobs_[i]->shape();
      CAFFE_CHECK(vector<int>(s.begin() + 1, s.end()) == row_shapes_[i])
          << "HDF5Data layer '" << name << "': dataset '"
          << this->layer_param_.top(i) << "' in '" << filename
          << "' has shape " << hdf_blobs_[i]->shape_string()
          << ", whose rows differ from the earlier files";
    }
  }

  data_permutation_.resize(num);
  std::iota(data_permutation_.begin(), data_permutation_.end(), 0u);
  if (this->layer_param_.hdf5_data_param().shuffle()) {
    std::shuffle(data_permutation_.begin(), data_permutation_.end(),
                 *shuffle_rng_);
    DLOG(INFO) << "Successfully loaded " << num << " rows (shuffled)";
  } else {
    DLOG(INFO) << "Successfully loaded " << num << " rows";
  }
}

template <typename Dtype>
void HDF5DataLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const string& name = this->layer_param_.name();
  const HDF5DataParameter& param = this->layer_param_.hdf5_data_param();
  CAFFE_CHECK_EQ(this->layer_param_.top_size(), static_cast<int>(top.size()))
      << "HDF5Data layer '" << name
      << "': each top must be named after the dataset it reads";
  CAFFE_CHECK_GT(param.batch_size(), 0u)
      << "HDF5Data layer '" << name << "': hdf5_data_param.batch_size must "
      << "be > 0";
  const string& source = param.source();
  LOG(INFO) << "Loading list of HDF5 filenames from: " << source;
  hdf_filenames_.clear();
  std::ifstream source_file(source.c_str());
  CAFFE_CHECK(source_file.is_open())
      << "HDF5Data layer '" << name << "': failed to open source file '"
      << source << "'";
  string line;
  while (source_file >> line) hdf_filenames_.push_back(line);
  num_files_ = static_cast<unsigned int>(hdf_filenames_.size());
  CAFFE_CHECK_GE(num_files_, 1u)
      << "HDF5Data layer '" << name << "': source file '" << source
      << "' lists no HDF5 files";
  LOG(INFO) << "Number of HDF5 files: " << num_files_;

  // Seeded from Caffe's stream here, at setup: every rank of a
  // data-parallel job draws the same seed, so all walk one order.
  shuffle_rng_.reset(new Caffe::RNG(caffe_rng_rand()));
  file_permutation_.resize(num_files_);
  std::iota(file_permutation_.begin(), file_permutation_.end(), 0u);
  if (param.shuffle()) {
    std::shuffle(file_permutation_.begin(), file_permutation_.end(),
                 *shuffle_rng_);
  }

  row_shapes_.clear();
  current_file_ = 0;
  LoadHDF5FileData(hdf_filenames_[file_permutation_[current_file_]].c_str());
  current_row_ = 0;
  offset_ = 0;
  // Data-parallel: where this rank's first batch starts.
  SkipRows(static_cast<uint64_t>(Caffe::solver_rank()) * param.batch_size());

  const int batch_size = static_cast<int>(param.batch_size());
  for (size_t i = 0; i < top.size(); ++i) {
    vector<int> top_shape(hdf_blobs_[i]->shape());
    top_shape[0] = batch_size;
    top[i]->Reshape(top_shape);
  }
}

template <typename Dtype>
void HDF5DataLayer<Dtype>::Next() {
  if (++current_row_ == static_cast<hsize_t>(hdf_blobs_[0]->shape(0))) {
    const bool shuffle = this->layer_param_.hdf5_data_param().shuffle();
    if (num_files_ > 1) {
      ++current_file_;
      if (current_file_ == num_files_) {
        current_file_ = 0;
        if (shuffle) {
          std::shuffle(file_permutation_.begin(), file_permutation_.end(),
                       *shuffle_rng_);
        }
        DLOG(INFO) << "Looping around to first file.";
      }
      LoadHDF5FileData(
          hdf_filenames_[file_permutation_[current_file_]].c_str());
    } else if (shuffle) {
      std::shuffle(data_permutation_.begin(), data_permutation_.end(),
                   *shuffle_rng_);
    }
    current_row_ = 0;
  }
  ++offset_;
}

template <typename Dtype>
void HDF5DataLayer<Dtype>::SkipRows(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) Next();
}

template <typename Dtype>
void HDF5DataLayer<Dtype>::Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                                       const vector<Blob<Dtype>*>& top) {
  const int batch_size =
      static_cast<int>(this->layer_param_.hdf5_data_param().batch_size());
  for (int i = 0; i < batch_size; ++i) {
    for (size_t j = 0; j < top.size(); ++j) {
      const int data_dim = top[j]->count() / top[j]->shape(0);
      caffe_copy(data_dim,
                 &hdf_blobs_[j]->cpu_data()[static_cast<size_t>(
                     data_permutation_[current_row_]) * data_dim],
                 &top[j]->mutable_cpu_data()[static_cast<size_t>(i) *
                                             data_dim]);
    }
    Next();
  }
  // The other ranks' shares of this step of the row stream.
  SkipRows(static_cast<uint64_t>(Caffe::solver_count() - 1) * batch_size);
}

INSTANTIATE_CLASS(HDF5DataLayer);
REGISTER_LAYER_CLASS(HDF5Data);

}  // namespace caffe
