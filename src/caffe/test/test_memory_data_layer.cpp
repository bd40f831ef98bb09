// Tests of the MemoryData layer.
#include <gtest/gtest.h>

#ifdef USE_OPENCV
#include <opencv2/core/core.hpp>
#endif

#include <vector>

#include "caffe/layers/memory_data_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_image_helpers.hpp"

namespace caffe {

template <typename Dtype>
class MemoryDataLayerTest : public ::testing::Test {
 protected:
  MemoryDataLayerTest() : top_{&data_, &label_} {}

  LayerParameter MakeParam(int batch_size, int channels, int height,
                           int width) {
    LayerParameter param;
    param.set_name("mem");
    param.set_type("MemoryData");
    MemoryDataParameter* p = param.mutable_memory_data_param();
    p->set_batch_size(batch_size);
    p->set_channels(channels);
    p->set_height(height);
    p->set_width(width);
    return param;
  }

  Blob<Dtype> data_, label_;
  vector<Blob<Dtype>*> bottom_, top_;
};

TYPED_TEST_SUITE(MemoryDataLayerTest, TestDtypes);

TYPED_TEST(MemoryDataLayerTest, ResetServesBatchesInTurn) {
  const int batch = 2, c = 2, h = 1, w = 3, n = 6, dim = c * h * w;
  MemoryDataLayer<TypeParam> layer(this->MakeParam(batch, c, h, w));
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{batch, c, h, w}), this->data_.shape());
  EXPECT_EQ((vector<int>{batch}), this->label_.shape());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  // Forward before any data.
  EXPECT_THROW(layer.Forward(this->bottom_, this->top_), Error);
  vector<TypeParam> data(n * dim), labels(n);
  for (int i = 0; i < n * dim; ++i) data[i] = i * 0.5;
  for (int i = 0; i < n; ++i) labels[i] = 10 + i;
  layer.Reset(data.data(), labels.data(), n);
  for (int iter = 0; iter < 5; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    const int first = (iter * batch) % n;
    for (int i = 0; i < batch * dim; ++i)
      ASSERT_EQ(data[first * dim + i], this->data_.cpu_data()[i]);
    for (int i = 0; i < batch; ++i)
      ASSERT_EQ(labels[first + i], this->label_.cpu_data()[i]);
  }
  EXPECT_THROW(layer.Reset(data.data(), labels.data(), 5), Error);
  EXPECT_THROW(layer.Reset(nullptr, labels.data(), 4), Error);
}

TYPED_TEST(MemoryDataLayerTest, AddDatumVectorTransforms) {
  LayerParameter param = this->MakeParam(2, 1, 2, 2);
  param.mutable_transform_param()->set_scale(0.5);
  MemoryDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  vector<Datum> datums(4);
  for (int i = 0; i < 4; ++i) {
    datums[i].set_channels(1);
    datums[i].set_height(2);
    datums[i].set_width(2);
    datums[i].set_label(i);
    string bytes;
    for (int j = 0; j < 4; ++j) bytes.push_back(static_cast<char>(i * 4 + j));
    datums[i].set_data(bytes);
  }
  // Not a multiple of the batch size.
  EXPECT_THROW(layer.AddDatumVector(vector<Datum>(3, datums[0])), Error);
  layer.AddDatumVector(datums);
  // The first addition has not been served yet.
  EXPECT_THROW(layer.AddDatumVector(datums), Error);
  for (int iter = 0; iter < 2; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ((iter * 8 + i) * 0.5, this->data_.cpu_data()[i]);
    EXPECT_EQ(iter * 2 + 1, this->label_.cpu_data()[1]);
  }
  // Everything served: new data is accepted.
  layer.AddDatumVector(datums);
}

#ifdef USE_OPENCV  // AddMatVector exists only with OpenCV
TYPED_TEST(MemoryDataLayerTest, AddMatVector) {
  MemoryDataLayer<TypeParam> layer(this->MakeParam(1, 3, 2, 3));
  layer.SetUp(this->bottom_, this->top_);
  vector<cv::Mat> mats{test::PatternImage(0, 2, 3, 3),
                       test::PatternImage(1, 2, 3, 3)};
  EXPECT_THROW(layer.AddMatVector(mats, vector<int>{1}), Error);
  layer.AddMatVector(mats, vector<int>{7, 8});
  layer.Forward(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ(8, this->label_.cpu_data()[0]);
  EXPECT_EQ(test::PatternValue(1, 1, 2, 1), this->data_.data_at(0, 1, 1, 2));
}
#endif  // USE_OPENCV

TYPED_TEST(MemoryDataLayerTest, BadParamsThrow) {
  MemoryDataLayer<TypeParam> layer(this->MakeParam(2, 0, 2, 2));
  EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  MemoryDataLayer<TypeParam> no_batch(this->MakeParam(0, 1, 2, 2));
  EXPECT_THROW(no_batch.SetUp(this->bottom_, this->top_), Error);
}

TEST(DataLayerRegistryTest, ImageLayersAreRegistered) {
  for (const char* type : {"ImageData", "MemoryData", "WindowData"}) {
    LayerParameter param;
    param.set_type(type);
    shared_ptr<Layer<float> > layer = LayerRegistry<float>::CreateLayer(param);
    EXPECT_STREQ(type, layer->type());
    EXPECT_EQ(kReadsNothing, layer->Memory().backward_reads);
  }
}

}  // namespace caffe
