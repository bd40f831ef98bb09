#include "caffe/layers/data_layer.hpp"

namespace caffe {

template <typename Dtype>
DataLayer<Dtype>::DataLayer(const LayerParameter& param)
    : BasePrefetchingDataLayer<Dtype>(param), offset_(0) {}

template <typename Dtype>
DataLayer<Dtype>::~DataLayer() {
  // load_batch uses the cursor: stop the thread before members go away.
  this->StopInternalThread();
}

template <typename Dtype>
void DataLayer<Dtype>::DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  const DataParameter& param = this->layer_param_.data_param();
  const string& name = this->layer_param_.name();
  CAFFE_CHECK(param.has_source() && !param.source().empty())
      << "Data layer '" << name << "' needs data_param.source";
  const int batch_size = static_cast<int>(param.batch_size());
  CAFFE_CHECK_GT(batch_size, 0)
      << "Data layer '" << name << "': data_param.batch_size must be > 0";

  cursor_.reset();
  db_.reset(db::GetDB(param.backend()));
  db_->Open(param.source(), db::READ);
  cursor_.reset(db_->NewCursor());
  CAFFE_CHECK(cursor_->valid())
      << "Data layer '" << name << "': database " << param.source()
      << " is empty";
  offset_ = 0;

  if (param.rand_skip()) {
    const unsigned int skip = caffe_rng_rand() % param.rand_skip();
    LOG(INFO) << "Skipping first " << skip << " data points.";
    for (unsigned int i = 0; i < skip; ++i) Next();
  }
  // Data-parallel: rank r of N reads records [t*N*B + r*B, t*N*B + (r+1)*B)
  // at batch t; this is where its first batch starts.
  SkipRecords(static_cast<uint64_t>(Caffe::solver_rank()) * batch_size);

  // The first record fixes the initial shape; later batches reshape to
  // their own first record.
  Datum datum;
  ReadDatum(&datum);
  vector<int> top_shape = this->data_transformer_->InferBlobShape(datum);
  this->transformed_data_.Reshape(top_shape);
  top_shape[0] = batch_size;
  top[0]->Reshape(top_shape);
  for (auto& batch : this->prefetch_) batch->data_.Reshape(top_shape);
  LOG(INFO) << "output data size: " << top[0]->shape_string();
  if (this->output_labels_) {
    vector<int> label_shape(1, batch_size);
    top[1]->Reshape(label_shape);
    for (auto& batch : this->prefetch_) batch->label_.Reshape(label_shape);
  }
}

template <typename Dtype>
void DataLayer<Dtype>::Next() {
  cursor_->Next();
  if (!cursor_->valid()) {
    DLOG(INFO) << "Restarting data prefetching from start.";
    cursor_->SeekToFirst();
  }
  ++offset_;
}

template <typename Dtype>
void DataLayer<Dtype>::SkipRecords(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) Next();
}

template <typename Dtype>
void DataLayer<Dtype>::ReadDatum(Datum* datum) {
  if (!datum->ParseFromString(cursor_->value())) {
    CAFFE_THROW() << "Data layer '" << this->layer_param_.name()
                  << "': record '" << cursor_->key() << "' in "
                  << this->layer_param_.data_param().source()
                  << " is not a valid Datum";
  }
}

template <typename Dtype>
void DataLayer<Dtype>::load_batch(Batch<Dtype>* batch) {
  const int batch_size =
      static_cast<int>(this->layer_param_.data_param().batch_size());
  Datum datum;
  for (int item_id = 0; item_id < batch_size; ++item_id) {
    ReadDatum(&datum);
    if (item_id == 0) {
      vector<int> top_shape = this->data_transformer_->InferBlobShape(datum);
      this->transformed_data_.Reshape(top_shape);
      top_shape[0] = batch_size;
      batch->data_.Reshape(top_shape);
    }
    Dtype* top_data = batch->data_.mutable_cpu_data();
    this->transformed_data_.set_cpu_data(top_data +
                                         batch->data_.offset(item_id));
    try {
      this->data_transformer_->Transform(datum, &this->transformed_data_);
    } catch (const Error& e) {
      throw Error("record '" + cursor_->key() + "' in " +
                  this->layer_param_.data_param().source() + ": " + e.what());
    }
    if (this->output_labels_) {
      batch->label_.mutable_cpu_data()[item_id] = datum.label();
    }
    Next();
  }
  // The other ranks' shares of this step of the record stream.
  SkipRecords(static_cast<uint64_t>(Caffe::solver_count() - 1) * batch_size);
}

INSTANTIATE_CLASS(DataLayer);
REGISTER_LAYER_CLASS(Data);

}  // namespace caffe
