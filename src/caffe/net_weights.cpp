// net_weights.cpp: Net's trained weights in and out -- sharing them with
// another net, copying them from a NetParameter, a .caffemodel or an HDF5
// file (matched to this net's layers by name), and writing them as a
// NetParameter or HDF5 (formats: docs/formats.md).  Split from net.cpp,
// which builds the net (net_run.cpp runs it).
#include "caffe/net.hpp"

#include <hdf5.h>

#include "caffe/util/hdf5.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/upgrade_proto.hpp"

namespace caffe {

template <typename Dtype>
void Net<Dtype>::ShareTrainedLayersWith(const Net* other) {
  const int num_source_layers = static_cast<int>(other->layers().size());
  for (int i = 0; i < num_source_layers; ++i) {
    Layer<Dtype>* source_layer = other->layers()[i].get();
    const string& source_layer_name = other->layer_names()[i];
    if (!layer_names_index_.count(source_layer_name)) continue;
    const int target_layer_id = layer_names_index_[source_layer_name];
    vector<shared_ptr<Blob<Dtype> > >& target_blobs =
        layers_[target_layer_id]->blobs();
    CAFFE_CHECK_EQ(target_blobs.size(), source_layer->blobs().size())
        << "incompatible number of blobs for layer " << source_layer_name;
    for (size_t j = 0; j < target_blobs.size(); ++j) {
      Blob<Dtype>* source_blob = source_layer->blobs()[j].get();
      CAFFE_CHECK(target_blobs[j]->shape() == source_blob->shape())
          << "cannot share param " << j << " weights from layer '"
          << source_layer_name << "'; shape mismatch. Source param shape is "
          << source_blob->shape_string() << "; target param shape is "
          << target_blobs[j]->shape_string();
      target_blobs[j]->ShareData(*source_blob);
    }
  }
}

template <typename Dtype>
vector<shared_ptr<Blob<Dtype> > >* Net<Dtype>::TargetBlobs(
    const string& source_layer_name) {
  if (!layer_names_index_.count(source_layer_name)) {
    LOG(INFO) << "Ignoring source layer " << source_layer_name;
    return nullptr;
  }
  return &layers_[layer_names_index_[source_layer_name]]->blobs();
}

template <typename Dtype>
void Net<Dtype>::CopyTrainedLayersFrom(const NetParameter& param) {
  const int num_source_layers = param.layer_size();
  for (int i = 0; i < num_source_layers; ++i) {
    const LayerParameter& source_layer = param.layer(i);
    const string& source_layer_name = source_layer.name();
    vector<shared_ptr<Blob<Dtype> > >* target = TargetBlobs(source_layer_name);
    if (!target) continue;
    vector<shared_ptr<Blob<Dtype> > >& target_blobs = *target;
    CAFFE_CHECK_EQ(static_cast<int>(target_blobs.size()),
                   source_layer.blobs_size())
        << "incompatible number of blobs for layer '" << source_layer_name
        << "'";
    for (size_t j = 0; j < target_blobs.size(); ++j) {
      if (!target_blobs[j]->ShapeEquals(source_layer.blobs(j))) {
        Blob<Dtype> source_blob;
        source_blob.FromProto(source_layer.blobs(j), true);
        CAFFE_THROW() << "cannot copy param " << j << " weights from layer '"
                      << source_layer_name
                      << "'; shape mismatch. Source param shape is "
                      << source_blob.shape_string()
                      << "; target param shape is "
                      << target_blobs[j]->shape_string() << ". "
                      << "To learn this layer's parameters from scratch "
                         "rather than copying from a saved net, rename the "
                         "layer.";
      }
      target_blobs[j]->FromProto(source_layer.blobs(j), false);
    }
  }
}

namespace {
bool EndsWith(const string& s, const string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

template <typename Dtype>
void Net<Dtype>::CopyTrainedLayersFrom(const string& trained_filename) {
  if (EndsWith(trained_filename, ".h5")) {
    CopyTrainedLayersFromHDF5(trained_filename);
  } else {
    CopyTrainedLayersFromBinaryProto(trained_filename);
  }
}

template <typename Dtype>
void Net<Dtype>::CopyTrainedLayersFromBinaryProto(
    const string& trained_filename) {
  NetParameter param;
  ReadNetParamsFromBinaryFileOrDie(trained_filename, &param);
  try {
    CopyTrainedLayersFrom(param);
  } catch (const Error& e) {
    RethrowWithContext(trained_filename + ": ", e);
  }
}

template <typename Dtype>
void Net<Dtype>::CopyTrainedLayersFromHDF5(const string& trained_filename) {
  hdf5_check_file(trained_filename, {"data"});
  // Closing the file closes the groups a failed load leaves open.
  Hdf5ReadFile file(trained_filename);
  CAFFE_CHECK(file.ok()) << trained_filename
                         << ": cannot open as an HDF5 file";
  try {
    const hid_t data_hid = H5Gopen2(file.id(), "data", H5P_DEFAULT);
    CAFFE_CHECK_GE(data_hid, 0) << "no group 'data'";
    const int num_layers = hdf5_get_num_links(data_hid);
    for (int i = 0; i < num_layers; ++i) {
      const string source_layer_name = hdf5_get_name_by_idx(data_hid, i);
      vector<shared_ptr<Blob<Dtype> > >* target =
          TargetBlobs(source_layer_name);
      if (!target) continue;
      vector<shared_ptr<Blob<Dtype> > >& target_blobs = *target;
      const hid_t layer_hid =
          H5Gopen2(data_hid, source_layer_name.c_str(), H5P_DEFAULT);
      CAFFE_CHECK_GE(layer_hid, 0)
          << "cannot read group for layer " << source_layer_name;
      const int num_source_params = hdf5_get_num_links(layer_hid);
      CAFFE_CHECK_LE(num_source_params, static_cast<int>(target_blobs.size()))
          << "incompatible number of blobs for layer " << source_layer_name;
      for (size_t j = 0; j < target_blobs.size(); ++j) {
        const string dataset_name = std::to_string(j);
        CAFFE_CHECK(H5Lexists(layer_hid, dataset_name.c_str(), H5P_DEFAULT) >
                    0)
            << "incompatible number of blobs for layer " << source_layer_name;
        hdf5_load_nd_dataset(layer_hid, dataset_name.c_str(), 0,
                             kMaxBlobAxes, target_blobs[j].get());
      }
      H5Gclose(layer_hid);
    }
    H5Gclose(data_hid);
  } catch (const std::exception& e) {
    RethrowWithContext(trained_filename + ": ", e);
  }
}

template <typename Dtype>
void Net<Dtype>::ToProto(NetParameter* param, bool write_diff) const {
  param->Clear();
  param->set_name(name_);
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerParameter* layer_param = param->add_layer();
    layers_[i]->ToProto(layer_param, write_diff);
  }
}

template <typename Dtype>
void Net<Dtype>::ToHDF5(const string& filename, bool write_diff) const {
  // Written whole or not at all: a crash or a full disk keeps the old file.
  Hdf5AtomicFile file(filename);
  const hid_t file_hid = file.id();
  hid_t data_hid = H5Gcreate2(file_hid, "data", H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);
  hid_t diff_hid = -1;
  if (write_diff)
    diff_hid = H5Gcreate2(file_hid, "diff", H5P_DEFAULT, H5P_DEFAULT,
                          H5P_DEFAULT);
  for (size_t layer_id = 0; layer_id < layers_.size(); ++layer_id) {
    const LayerParameter& layer_param = layers_[layer_id]->layer_param();
    const string& layer_name = layer_param.name();
    if (layers_[layer_id]->blobs().empty()) continue;
    hid_t layer_data_hid = H5Gcreate2(data_hid, layer_name.c_str(),
                                      H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t layer_diff_hid = -1;
    if (write_diff)
      layer_diff_hid = H5Gcreate2(diff_hid, layer_name.c_str(), H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT);
    for (size_t j = 0; j < layers_[layer_id]->blobs().size(); ++j) {
      const string dataset_name = std::to_string(j);
      const Blob<Dtype>& blob = *layers_[layer_id]->blobs()[j];
      hdf5_save_nd_dataset(layer_data_hid, dataset_name, blob);
      if (write_diff) hdf5_save_nd_dataset(layer_diff_hid, dataset_name, blob,
                                           true);
    }
    H5Gclose(layer_data_hid);
    if (write_diff) H5Gclose(layer_diff_hid);
  }
  H5Gclose(data_hid);
  if (write_diff) H5Gclose(diff_hid);
  file.Commit();
}

#define INSTANTIATE_NET_WEIGHTS(Dtype)                                     \
  template void Net<Dtype>::ShareTrainedLayersWith(const Net<Dtype>*);   \
  template vector<shared_ptr<Blob<Dtype> > >* Net<Dtype>::TargetBlobs(  \
      const string&);                                                    \
  template void Net<Dtype>::CopyTrainedLayersFrom(const NetParameter&);  \
  template void Net<Dtype>::CopyTrainedLayersFrom(const string&);        \
  template void Net<Dtype>::CopyTrainedLayersFromBinaryProto(            \
      const string&);                                                    \
  template void Net<Dtype>::CopyTrainedLayersFromHDF5(const string&);    \
  template void Net<Dtype>::ToProto(NetParameter*, bool) const;          \
  template void Net<Dtype>::ToHDF5(const string&, bool) const

INSTANTIATE_NET_WEIGHTS(float);
INSTANTIATE_NET_WEIGHTS(double);

}  // namespace caffe
