// data_layer.hpp: "Data" reads Datum records from a database (LMDB or
// LevelDB); encoded records are decoded by the DataTransformer.
//
// Contract (Caffe 1.0): data_param.source names the database,
// data_param.backend picks the backend (LEVELDB, Caffe's default, or
// LMDB), data_param.batch_size (> 0) records go into each batch, read in
// key order and wrapping around to the first record after the last one.
// rand_skip > 0 skips a random number of records in [0, rand_skip) once at
// setup, so several nets do not see the same sequence.  top[0] is
// batch_size x C x H x W after transform_param (crop/mirror/mean/scale);
// the optional top[1] holds the labels (batch_size).  The shape comes from
// the first record of each batch; records of another size in the same batch
// throw.  Records are parsed on the prefetch thread; a record that is not a
// Datum surfaces as caffe::Error from Forward naming the key and source.
// In a data-parallel job (Caffe::solver_count() N > 1) rank r reads, for
// its batch t, records [t*N*B + r*B, t*N*B + (r+1)*B) of that stream
// (after rand_skip, which draws the same skip on every rank), so the
// ranks' batches in rank order are the single-process batch of N*B.
#ifndef CAFFE_LAYERS_DATA_LAYER_HPP_
#define CAFFE_LAYERS_DATA_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/layers/base_data_layer.hpp"
#include "caffe/util/db.hpp"

namespace caffe {

template <typename Dtype>
class DataLayer : public BasePrefetchingDataLayer<Dtype> {
 public:
  explicit DataLayer(const LayerParameter& param);
  ~DataLayer() override;
  void DataLayerSetUp(const vector<Blob<Dtype>*>& bottom,
                      const vector<Blob<Dtype>*>& top) override;
  const char* type() const override { return "Data"; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

 protected:
  void load_batch(Batch<Dtype>* batch) override;
  // Moves to the next record, wrapping around at the end.
  void Next();
  void SkipRecords(uint64_t n);
  // Parses the cursor's record, naming key and source when it is not a Datum.
  void ReadDatum(Datum* datum);

  std::unique_ptr<db::DB> db_;
  std::unique_ptr<db::Cursor> cursor_;
  uint64_t offset_;
};

}  // namespace caffe

#endif  // CAFFE_LAYERS_DATA_LAYER_HPP_
