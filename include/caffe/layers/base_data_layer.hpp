// base_data_layer.hpp: the common base of layers that produce data from
// outside the net (databases, files) rather than from bottoms.
//
// Contract:
//  * BaseDataLayer: no bottoms; LayerSetUp builds the DataTransformer from
//    transform_param (seeded via InitRand), notes whether a label top exists
//    (top.size() > 1) and calls DataLayerSetUp.  Reshape does nothing: tops
//    are shaped by each Forward.  Backward does nothing and reads nothing.
//  * BasePrefetchingDataLayer: a background std::thread fills a bounded set
//    of data_param.prefetch (default 4) batches through load_batch() while
//    the net computes.  Forward copies the next ready batch into the tops
//    (tops are reshaped to the batch).  An exception in the thread stops
//    it; batches loaded before the failure are still delivered, then every
//    further Forward throws caffe::Error carrying the original message.
//    Derived classes must call StopInternalThread() in their destructor so
//    the thread never runs load_batch on a half-destroyed object; the base
//    destructor stops it too.  Stopping never hangs: the thread only waits
//    on the layer's own condition variable, which Stop signals.
//    The thread runs with its own Caffe context (mode, solver rank/count and
//    a random seed drawn from the creating thread), since Caffe::Get() is
//    per thread.
#ifndef CAFFE_LAYERS_BASE_DATA_LAYER_HPP_
#define CAFFE_LAYERS_BASE_DATA_LAYER_HPP_

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/data_transformer.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class BaseDataLayer : public Layer<Dtype> {
 public:
  explicit BaseDataLayer(const LayerParameter& param);
  // Derived layers set themselves up in DataLayerSetUp.
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  virtual void DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                              const vector<Blob<Dtype>*>& top) {}
  // Tops are shaped by Forward from the data itself.
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override {}

  int ExactNumBottomBlobs() const override { return 0; }
  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

 protected:
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override {}

  TransformationParameter transform_param_;
  shared_ptr<DataTransformer<Dtype> > data_transformer_;
  bool output_labels_;
};

// One prefetched batch: data and, when the layer has a label top, labels.
template <typename Dtype>
class Batch {
 public:
  Blob<Dtype> data_, label_;
};

template <typename Dtype>
class BasePrefetchingDataLayer : public BaseDataLayer<Dtype> {
 public:
  explicit BasePrefetchingDataLayer(const LayerParameter& param);
  ~BasePrefetchingDataLayer() override;
  // Sets up the layer (DataLayerSetUp shapes the prefetch batches) and
  // starts the prefetch thread.
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;

  // Stops and joins the prefetch thread; safe to call more than once.
  void StopInternalThread();
  bool is_started() const { return thread_ != nullptr; }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;

  // Fills one batch; runs on the prefetch thread.
  virtual void load_batch(Batch<Dtype>* batch) = 0;

  void StartInternalThread();

  vector<shared_ptr<Batch<Dtype> > > prefetch_;
  // Scratch blob load_batch may point at one item of a batch (prefetch
  // thread only, after setup).
  Blob<Dtype> transformed_data_;

 private:
  void InternalThreadEntry(Caffe::Brew mode, unsigned int seed,
                           int solver_count, int solver_rank);
  void RethrowPrefetchError();

  std::unique_ptr<std::thread> thread_;
  std::mutex mutex_;
  std::condition_variable cond_;
  std::deque<Batch<Dtype>*> free_;
  std::deque<Batch<Dtype>*> full_;
  bool stop_requested_;
  std::exception_ptr error_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_BASE_DATA_LAYER_HPP_
