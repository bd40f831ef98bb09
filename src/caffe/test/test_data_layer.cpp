// Tests of the Data layer (and the prefetching base it runs on), reading
// LMDBs written by ConvertMnist or directly through db.hpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "caffe/layers/data_layer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/db.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/mnist_convert.hpp"

namespace caffe {

using test::TempDir;

namespace {
const int kItems = 6, kRows = 4, kCols = 5;
// Pixel (h, w) of image i as ConvertMnist stores it.
int Pixel(int i, int h, int w) { return (i * 40 + h * kCols + w) % 256; }
}  // namespace

template <typename Dtype>
class DataLayerTest : public ::testing::Test {
 protected:
  DataLayerTest() {
    Caffe::set_random_seed(1701);
    vector<string> pixels;
    vector<int> labels;
    for (int i = 0; i < kItems; ++i) {
      string p;
      for (int h = 0; h < kRows; ++h)
        for (int w = 0; w < kCols; ++w)
          p.push_back(static_cast<char>(Pixel(i, h, w)));
      pixels.push_back(p);
      labels.push_back(i);
    }
    test::WriteIdxImages(tmp_.file("images"), pixels, kRows, kCols);
    test::WriteIdxLabels(tmp_.file("labels"), labels);
    source_ = tmp_.file("lmdb");
    ConvertMnist(tmp_.file("images"), tmp_.file("labels"), source_, "lmdb");
    top_ = {&data_, &label_};
  }

  LayerParameter MakeParam(int batch_size, Phase phase = TRAIN) {
    LayerParameter param;
    param.set_name("data");
    param.set_type("Data");
    param.set_phase(phase);
    DataParameter* data_param = param.mutable_data_param();
    data_param->set_source(source_);
    data_param->set_backend(DataParameter_DB_LMDB);
    data_param->set_batch_size(batch_size);
    return param;
  }

  // Expects item n of data_ to be image `image` after `expected(v)`.
  template <typename Fn>
  void ExpectItem(int n, int image, int height, int width, int h_off,
                  int w_off, bool mirrored, Fn expected) {
    for (int h = 0; h < height; ++h)
      for (int w = 0; w < width; ++w) {
        const int src_w = mirrored ? (width - 1 - w) : w;
        ASSERT_NEAR(expected(Pixel(image, h + h_off, src_w + w_off)),
                    data_.data_at(n, 0, h, w), 1e-4)
            << "item " << n << " image " << image << " at " << h << "," << w;
      }
  }

  // Writes an LMDB with the given values under keys 00000000, 00000001, ...
  string WriteRecords(const vector<string>& values) {
    const string path = tmp_.file("records");
    std::unique_ptr<db::DB> db(db::GetDB("lmdb"));
    db->Open(path, db::NEW);
    std::unique_ptr<db::Transaction> txn(db->NewTransaction());
    for (size_t i = 0; i < values.size(); ++i) {
      char key[16];
      snprintf(key, sizeof(key), "%08d", static_cast<int>(i));
      txn->Put(key, values[i]);
    }
    txn->Commit();
    return path;
  }

  static string DatumString(int height, int width, int label) {
    Datum d;
    d.set_channels(1);
    d.set_height(height);
    d.set_width(width);
    d.set_label(label);
    d.set_data(string(height * width, static_cast<char>(label)));
    return d.SerializeAsString();
  }

  TempDir tmp_;
  string source_;
  Blob<Dtype> data_, label_;
  vector<Blob<Dtype>*> top_;
  vector<Blob<Dtype>*> bottom_;
};

TYPED_TEST_SUITE(DataLayerTest, TestDtypes);

TYPED_TEST(DataLayerTest, ReadsInOrderAndWrapsAround) {
  DataLayer<TypeParam> layer(this->MakeParam(4));
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{4, 1, kRows, kCols}), this->data_.shape());
  EXPECT_EQ((vector<int>{4}), this->label_.shape());
  for (int iter = 0; iter < 3; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    ASSERT_EQ((vector<int>{4, 1, kRows, kCols}), this->data_.shape());
    for (int n = 0; n < 4; ++n) {
      const int image = (iter * 4 + n) % kItems;
      EXPECT_EQ(image, this->label_.cpu_data()[n]);
      this->ExpectItem(n, image, kRows, kCols, 0, 0, false,
                       [](int v) { return v; });
    }
  }
}

TYPED_TEST(DataLayerTest, LabelTopIsOptional) {
  DataLayer<TypeParam> layer(this->MakeParam(2));
  vector<Blob<TypeParam>*> top{&this->data_};
  layer.SetUp(this->bottom_, top);
  layer.Forward(this->bottom_, top);
  layer.Forward(this->bottom_, top);
  this->ExpectItem(0, 2, kRows, kCols, 0, 0, false, [](int v) { return v; });
  this->ExpectItem(1, 3, kRows, kCols, 0, 0, false, [](int v) { return v; });
}

TYPED_TEST(DataLayerTest, ScaleAndMeanValue) {
  LayerParameter param = this->MakeParam(3);
  param.mutable_transform_param()->set_scale(0.5);
  param.mutable_transform_param()->add_mean_value(10);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  for (int n = 0; n < 3; ++n)
    this->ExpectItem(n, n, kRows, kCols, 0, 0, false,
                     [](int v) { return (v - 10) * 0.5; });
}

TYPED_TEST(DataLayerTest, CenterCropInTest) {
  LayerParameter param = this->MakeParam(2, TEST);
  param.mutable_transform_param()->set_crop_size(2);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{2, 1, 2, 2}), this->data_.shape());
  for (int iter = 0; iter < 2; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    ASSERT_EQ((vector<int>{2, 1, 2, 2}), this->data_.shape());
    // h_off = (4 - 2) / 2 = 1, w_off = (5 - 2) / 2 = 1.
    for (int n = 0; n < 2; ++n)
      this->ExpectItem(n, iter * 2 + n, 2, 2, 1, 1, false,
                       [](int v) { return v; });
  }
}

TYPED_TEST(DataLayerTest, MirrorFlipsSomeItemsReproducibly) {
  LayerParameter param = this->MakeParam(kItems);
  param.mutable_transform_param()->set_mirror(true);
  vector<vector<TypeParam> > runs;
  for (int run = 0; run < 2; ++run) {
    Caffe::set_random_seed(77);
    DataLayer<TypeParam> layer(param);
    layer.SetUp(this->bottom_, this->top_);
    int flipped = 0;
    vector<TypeParam> seen;
    for (int iter = 0; iter < 3; ++iter) {
      layer.Forward(this->bottom_, this->top_);
      for (int n = 0; n < kItems; ++n) {
        // Column 0 holds the last column when flipped.
        const bool is_flipped =
            this->data_.data_at(n, 0, 0, 0) == Pixel(n, 0, kCols - 1);
        flipped += is_flipped;
        this->ExpectItem(n, n, kRows, kCols, 0, 0, is_flipped,
                         [](int v) { return v; });
      }
      seen.insert(seen.end(), this->data_.cpu_data(),
                  this->data_.cpu_data() + this->data_.count());
    }
    EXPECT_GT(flipped, 0);
    EXPECT_LT(flipped, 3 * kItems);
    runs.push_back(seen);
  }
  // The same random_seed gives the same flips.
  EXPECT_EQ(runs[0], runs[1]);
}

TYPED_TEST(DataLayerTest, RandomCropInTrain) {
  LayerParameter param = this->MakeParam(kItems);
  param.mutable_transform_param()->set_crop_size(3);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{kItems, 1, 3, 3}), this->data_.shape());
  std::set<int> offsets;
  for (int iter = 0; iter < 4; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    for (int n = 0; n < kItems; ++n) {
      const int v = static_cast<int>(this->data_.data_at(n, 0, 0, 0)) -
                    Pixel(n, 0, 0);
      const int h_off = v / kCols, w_off = v % kCols;
      ASSERT_LE(h_off, kRows - 3);
      ASSERT_LE(w_off, kCols - 3);
      this->ExpectItem(n, n, 3, 3, h_off, w_off, false,
                       [](int v) { return v; });
      offsets.insert(v);
    }
  }
  EXPECT_GT(offsets.size(), 1u);
}

TYPED_TEST(DataLayerTest, MeanFileFromComputeImageMean) {
  BlobProto mean;
  ComputeImageMean(this->source_, "lmdb", &mean);
  const string mean_file = this->tmp_.file("mean.binaryproto");
  WriteProtoToBinaryFile(mean, mean_file);
  LayerParameter param = this->MakeParam(2);
  param.mutable_transform_param()->set_mean_file(mean_file);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < kRows; ++h)
      for (int w = 0; w < kCols; ++w) {
        double m = 0;
        for (int i = 0; i < kItems; ++i) m += Pixel(i, h, w);
        m /= kItems;
        EXPECT_NEAR(Pixel(n, h, w) - m, this->data_.data_at(n, 0, h, w),
                    1e-4);
      }
}

TYPED_TEST(DataLayerTest, RandSkipStartsAtAnOffsetInOrder) {
  LayerParameter param = this->MakeParam(kItems);
  param.mutable_data_param()->set_rand_skip(kItems);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  const int first = static_cast<int>(this->label_.cpu_data()[0]);
  for (int n = 0; n < kItems; ++n)
    EXPECT_EQ((first + n) % kItems, this->label_.cpu_data()[n]);
}

TYPED_TEST(DataLayerTest, MissingLMDBThrowsNamingPath) {
  LayerParameter param = this->MakeParam(2);
  const string missing = this->tmp_.file("no_such_lmdb");
  param.mutable_data_param()->set_source(missing);
  DataLayer<TypeParam> layer(param);
  try {
    layer.SetUp(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find(missing)) << e.what();
  }
}

TYPED_TEST(DataLayerTest, BadParamsThrow) {
  {
    LayerParameter param = this->MakeParam(0);
    DataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    LayerParameter param = this->MakeParam(2);
    param.mutable_data_param()->clear_source();
    DataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    LayerParameter param = this->MakeParam(2);
    param.mutable_data_param()->set_backend(DataParameter_DB_LEVELDB);
    DataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    LayerParameter param = this->MakeParam(2);
    param.mutable_data_param()->set_prefetch(0);
    DataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    LayerParameter param = this->MakeParam(2);
    param.mutable_transform_param()->set_crop_size(kRows + 1);
    DataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    // Three tops.
    DataLayer<TypeParam> layer(this->MakeParam(2));
    Blob<TypeParam> extra;
    vector<Blob<TypeParam>*> top{&this->data_, &this->label_, &extra};
    EXPECT_THROW(layer.SetUp(this->bottom_, top), Error);
  }
  {
    // An empty database.
    LayerParameter param = this->MakeParam(2);
    param.mutable_data_param()->set_source(this->WriteRecords({}));
    DataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
}

TYPED_TEST(DataLayerTest, CorruptRecordBecomesErrorInForward) {
  LayerParameter param = this->MakeParam(1);
  const string source = this->WriteRecords(
      {this->DatumString(2, 2, 1), string("\x08\xff", 2),
       this->DatumString(2, 2, 3)});
  param.mutable_data_param()->set_source(source);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  // The batch read before the bad record still arrives.
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ(1, this->label_.cpu_data()[0]);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      layer.Forward(this->bottom_, this->top_);
      FAIL() << "expected caffe::Error";
    } catch (const Error& e) {
      const string msg = e.what();
      EXPECT_NE(string::npos, msg.find("00000001")) << msg;
      EXPECT_NE(string::npos, msg.find(source)) << msg;
      EXPECT_NE(string::npos, msg.find("'data'")) << msg;
    }
  }
}

TYPED_TEST(DataLayerTest, RecordOfWrongSizeInBatchThrows) {
  LayerParameter param = this->MakeParam(2);
  const string source = this->WriteRecords(
      {this->DatumString(2, 2, 0), this->DatumString(2, 3, 1)});
  param.mutable_data_param()->set_source(source);
  param.mutable_data_param()->set_prefetch(1);
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  try {
    layer.Forward(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("00000001")) << e.what();
  }
}

TYPED_TEST(DataLayerTest, ShutdownNeverHangs) {
  for (int prefetch : {1, 3}) {
    LayerParameter param = this->MakeParam(2);
    param.mutable_data_param()->set_prefetch(prefetch);
    // Destroyed while the thread is still loading.
    { DataLayer<TypeParam> layer(param); layer.SetUp(this->bottom_, this->top_); }
    // Destroyed while the thread waits for a free batch.
    {
      DataLayer<TypeParam> layer(param);
      layer.SetUp(this->bottom_, this->top_);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Destroyed after some batches; and set up twice.
    {
      DataLayer<TypeParam> layer(param);
      layer.SetUp(this->bottom_, this->top_);
      layer.Forward(this->bottom_, this->top_);
      layer.SetUp(this->bottom_, this->top_);
      layer.Forward(this->bottom_, this->top_);
      EXPECT_EQ(0, this->label_.cpu_data()[0]);
    }
  }
  // Destroyed after the thread failed.
  LayerParameter param = this->MakeParam(1);
  param.mutable_data_param()->set_source(
      this->WriteRecords({this->DatumString(1, 1, 0), "\x08"}));
  DataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TYPED_TEST(DataLayerTest, BackwardReadsNothing) {
  DataLayer<TypeParam> layer(this->MakeParam(2));
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  const TypeParam nan = std::numeric_limits<TypeParam>::quiet_NaN();
  caffe_set(this->data_.count(), nan, this->data_.mutable_cpu_data());
  caffe_set(this->label_.count(), nan, this->label_.mutable_cpu_data());
  layer.Backward(this->top_, vector<bool>(), this->bottom_);
  // Backward left the tops alone and the next batch is intact.
  EXPECT_TRUE(std::isnan(this->data_.cpu_data()[0]));
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ(2, this->label_.cpu_data()[0]);
}

TYPED_TEST(DataLayerTest, CreatedByFactory) {
  shared_ptr<Layer<TypeParam> > layer =
      LayerRegistry<TypeParam>::CreateLayer(this->MakeParam(3));
  EXPECT_STREQ("Data", layer->type());
  layer->SetUp(this->bottom_, this->top_);
  layer->Forward(this->bottom_, this->top_);
  EXPECT_EQ(2, this->label_.cpu_data()[2]);
}

}  // namespace caffe
