// Tests of the ImageData layer on PNG folders written by the test.
// They need OpenCV (USE_OPENCV); a build without it checks the layer's
// error in test_image_io.cpp instead.
#ifdef USE_OPENCV
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "caffe/layers/image_data_layer.hpp"
#include "caffe/test/test_data_helpers.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_image_helpers.hpp"

namespace caffe {

using test::PatternImage;
using test::PatternValue;
using test::TempDir;

namespace {
const int kImages = 5, kRows = 4, kCols = 6;
}  // namespace

template <typename Dtype>
class ImageDataLayerTest : public ::testing::Test {
 protected:
  ImageDataLayerTest() {
    Caffe::set_random_seed(1701);
    // Images live under root/ and the list names them relatively.
    root_ = tmp_.path() + "/";
    string list;
    for (int i = 0; i < kImages; ++i) {
      const string name = "img" + std::to_string(i) + ".png";
      test::WritePng(tmp_.file(name), PatternImage(i, kRows, kCols, 3));
      list += name + " " + std::to_string(100 + i) + "\n";
    }
    source_ = tmp_.file("list.txt");
    test::WriteTextFile(source_, list);
    top_ = {&data_, &label_};
  }

  LayerParameter MakeParam(int batch_size) {
    LayerParameter param;
    param.set_name("images");
    param.set_type("ImageData");
    ImageDataParameter* p = param.mutable_image_data_param();
    p->set_source(source_);
    p->set_root_folder(root_);
    p->set_batch_size(batch_size);
    return param;
  }

  TempDir tmp_;
  string root_, source_;
  Blob<Dtype> data_, label_;
  vector<Blob<Dtype>*> bottom_, top_;
};

TYPED_TEST_SUITE(ImageDataLayerTest, TestDtypes);

TYPED_TEST(ImageDataLayerTest, ReadsInOrderAndWraps) {
  ImageDataLayer<TypeParam> layer(this->MakeParam(3));
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{3, 3, kRows, kCols}), this->data_.shape());
  EXPECT_EQ((vector<int>{3}), this->label_.shape());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  int next = 0;
  for (int iter = 0; iter < 3; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    for (int n = 0; n < 3; ++n, next = (next + 1) % kImages) {
      EXPECT_EQ(100 + next, this->label_.cpu_data()[n]);
      for (int c = 0; c < 3; ++c)
        for (int h = 0; h < kRows; ++h)
          for (int w = 0; w < kCols; ++w)
            ASSERT_EQ(PatternValue(next, h, w, c),
                      this->data_.data_at(n, c, h, w));
    }
  }
}

TYPED_TEST(ImageDataLayerTest, ResizeAndGray) {
  LayerParameter param = this->MakeParam(2);
  param.mutable_image_data_param()->set_new_height(2);
  param.mutable_image_data_param()->set_new_width(3);
  param.mutable_image_data_param()->set_is_color(false);
  ImageDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{2, 1, 2, 3}), this->data_.shape());
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{2, 1, 2, 3}), this->data_.shape());
  EXPECT_EQ(101, this->label_.cpu_data()[1]);
}

TYPED_TEST(ImageDataLayerTest, ShuffleVisitsEveryImageOncePerEpoch) {
  LayerParameter param = this->MakeParam(kImages);
  param.mutable_image_data_param()->set_shuffle(true);
  ImageDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  for (int epoch = 0; epoch < 2; ++epoch) {
    layer.Forward(this->bottom_, this->top_);
    vector<int> labels;
    for (int n = 0; n < kImages; ++n) {
      const int label = static_cast<int>(this->label_.cpu_data()[n]);
      labels.push_back(label);
      // Each image still carries its own label.
      ASSERT_EQ(PatternValue(label - 100, 1, 2, 0),
                this->data_.data_at(n, 0, 1, 2));
    }
    std::sort(labels.begin(), labels.end());
    EXPECT_EQ((vector<int>{100, 101, 102, 103, 104}), labels);
  }
}

TYPED_TEST(ImageDataLayerTest, CropThroughTransformer) {
  LayerParameter param = this->MakeParam(1);
  param.set_phase(TEST);
  param.mutable_transform_param()->set_crop_size(2);
  param.mutable_transform_param()->set_scale(2);
  ImageDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{1, 3, 2, 2}), this->data_.shape());
  // Centre crop of 4 x 6: offsets 1, 2.
  EXPECT_EQ(2 * PatternValue(0, 1 + 1, 2 + 1, 2),
            this->data_.data_at(0, 2, 1, 1));
}

TYPED_TEST(ImageDataLayerTest, MissingImageNamesListLineAndImage) {
  test::WriteTextFile(this->source_, "img0.png 0\nmissing.png 1\n");
  ImageDataLayer<TypeParam> layer(this->MakeParam(2));
  layer.SetUp(this->bottom_, this->top_);
  try {
    layer.Forward(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    const string msg = e.what();
    EXPECT_NE(string::npos, msg.find(this->source_ + ":2")) << msg;
    EXPECT_NE(string::npos, msg.find("missing.png")) << msg;
  }
  // A missing first image fails already at setup.
  test::WriteTextFile(this->source_, "missing.png 1\n");
  ImageDataLayer<TypeParam> layer2(this->MakeParam(1));
  try {
    layer2.SetUp(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    const string msg = e.what();
    EXPECT_NE(string::npos, msg.find(this->source_ + ":1")) << msg;
    EXPECT_NE(string::npos, msg.find("missing.png")) << msg;
  }
}

TYPED_TEST(ImageDataLayerTest, CorruptImageNamesFile) {
  test::WriteTextFile(this->tmp_.file("bad.png"), "not a png at all");
  test::WriteTextFile(this->source_, "bad.png 3\n");
  ImageDataLayer<TypeParam> layer(this->MakeParam(1));
  try {
    layer.SetUp(this->bottom_, this->top_);
    FAIL() << "expected caffe::Error";
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("bad.png")) << e.what();
  }
}

TYPED_TEST(ImageDataLayerTest, BadParamsThrow) {
  {
    LayerParameter param = this->MakeParam(1);
    param.mutable_image_data_param()->set_new_height(3);
    ImageDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    LayerParameter param = this->MakeParam(0);
    ImageDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    test::WriteTextFile(this->source_, "");
    ImageDataLayer<TypeParam> layer(this->MakeParam(1));
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    LayerParameter param = this->MakeParam(1);
    param.mutable_image_data_param()->set_source(this->tmp_.file("nolist"));
    ImageDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
}

}  // namespace caffe
#endif  // USE_OPENCV
