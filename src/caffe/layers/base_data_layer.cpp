#include "caffe/layers/base_data_layer.hpp"

namespace caffe {

template <typename Dtype>
BaseDataLayer<Dtype>::BaseDataLayer(const LayerParameter& param)
    : Layer<Dtype>(param),
      transform_param_(param.transform_param()),
      output_labels_(false) {}

template <typename Dtype>
void BaseDataLayer<Dtype>::LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                                      const vector<Blob<Dtype>*>& top) {
  output_labels_ = top.size() > 1;
  data_transformer_.reset(
      new DataTransformer<Dtype>(transform_param_, this->phase_));
  data_transformer_->InitRand();
  DataLayerSetUp(bottom, top);
}

template <typename Dtype>
BasePrefetchingDataLayer<Dtype>::BasePrefetchingDataLayer(
    const LayerParameter& param)
    : BaseDataLayer<Dtype>(param), stop_requested_(false) {
  const int prefetch = static_cast<int>(param.data_param().prefetch());
  for (int i = 0; i < prefetch; ++i)
    prefetch_.push_back(std::make_shared<Batch<Dtype> >());
}

template <typename Dtype>
BasePrefetchingDataLayer<Dtype>::~BasePrefetchingDataLayer() {
  StopInternalThread();
}

template <typename Dtype>
void BasePrefetchingDataLayer<Dtype>::LayerSetUp(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  // A second SetUp must not race the thread of the first.
  StopInternalThread();
  CAFFE_CHECK_GT(prefetch_.size(), 0u)
      << "Layer " << this->layer_param_.name()
      << ": data_param.prefetch must be at least 1";
  BaseDataLayer<Dtype>::LayerSetUp(bottom, top);
  StartInternalThread();
}

template <typename Dtype>
void BasePrefetchingDataLayer<Dtype>::StartInternalThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_ = false;
    error_ = nullptr;
    free_.clear();
    full_.clear();
    for (auto& batch : prefetch_) free_.push_back(batch.get());
  }
  // Caffe's settings are per thread: hand the current ones over, with a
  // seed drawn here so a fixed random_seed makes prefetching repeatable.
  // Nets are built from the same seed on every rank of a data-parallel
  // job; augmentation draws from seed + rank so that ranks differ.
  const Caffe::Brew mode = Caffe::mode();
  const int solver_count = Caffe::solver_count();
  const int solver_rank = Caffe::solver_rank();
  const unsigned int seed =
      caffe_rng_rand() + static_cast<unsigned int>(solver_rank);
  thread_.reset(new std::thread(
      &BasePrefetchingDataLayer<Dtype>::InternalThreadEntry, this, mode, seed,
      solver_count, solver_rank));
}

template <typename Dtype>
void BasePrefetchingDataLayer<Dtype>::StopInternalThread() {
  if (!thread_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_ = true;
  }
  cond_.notify_all();
  if (thread_->joinable()) thread_->join();
  thread_.reset();
}

template <typename Dtype>
void BasePrefetchingDataLayer<Dtype>::InternalThreadEntry(
    Caffe::Brew mode, unsigned int seed, int solver_count, int solver_rank) {
  Caffe::set_mode(mode);
  Caffe::set_random_seed(seed);
  Caffe::set_solver_count(solver_count);
  Caffe::set_solver_rank(solver_rank);
  try {
    for (;;) {
      Batch<Dtype>* batch = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cond_.wait(lock, [this] { return stop_requested_ || !free_.empty(); });
        if (stop_requested_) return;
        batch = free_.front();
        free_.pop_front();
      }
      load_batch(batch);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        full_.push_back(batch);
      }
      cond_.notify_all();
    }
  } catch (...) {
    // Never let an exception leave the thread (std::terminate); Forward
    // rethrows it on the net's thread.
    {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    cond_.notify_all();
  }
}

template <typename Dtype>
void BasePrefetchingDataLayer<Dtype>::RethrowPrefetchError() {
  std::ostringstream prefix;
  prefix << this->type() << " layer '" << this->layer_param_.name()
         << "': prefetching a batch failed: ";
  try {
    std::rethrow_exception(error_);
  } catch (const std::exception& e) {
    throw Error(prefix.str() + e.what());
  } catch (...) {
    throw Error(prefix.str() + "unknown exception");
  }
}

template <typename Dtype>
void BasePrefetchingDataLayer<Dtype>::Forward_cpu(
    const vector<Blob<Dtype>*>& bottom, const vector<Blob<Dtype>*>& top) {
  Batch<Dtype>* batch = nullptr;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    CAFFE_CHECK(thread_) << this->type() << " layer '"
                         << this->layer_param_.name()
                         << "' runs Forward before SetUp";
    if (full_.empty() && !error_) DLOG(INFO) << "Waiting for data";
    cond_.wait(lock, [this] { return !full_.empty() || error_; });
    // Batches finished before a failure are still good; deliver them first.
    if (full_.empty()) RethrowPrefetchError();
    batch = full_.front();
    full_.pop_front();
  }
  // Give the batch back even if copying out fails, or the thread starves.
  struct Recycle {
    BasePrefetchingDataLayer* self;
    Batch<Dtype>* batch;
    ~Recycle() {
      {
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->free_.push_back(batch);
      }
      self->cond_.notify_all();
    }
  } recycle{this, batch};
  top[0]->ReshapeLike(batch->data_);
  caffe_copy(batch->data_.count(), batch->data_.cpu_data(),
             top[0]->mutable_cpu_data());
  if (this->output_labels_) {
    top[1]->ReshapeLike(batch->label_);
    caffe_copy(batch->label_.count(), batch->label_.cpu_data(),
               top[1]->mutable_cpu_data());
  }
}

INSTANTIATE_CLASS(BaseDataLayer);
INSTANTIATE_CLASS(BasePrefetchingDataLayer);

}  // namespace caffe
