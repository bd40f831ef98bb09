// Tests of the DummyData layer: shapes (N-D and legacy), fillers, refilling.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "caffe/layers/dummy_data_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {

template <typename Dtype>
class DummyDataLayerTest : public ::testing::Test {
 protected:
  DummyDataLayerTest() : top_{&a_, &b_, &c_} { Caffe::set_random_seed(1701); }

  static void AddShape(DummyDataParameter* param, const vector<int>& dims) {
    BlobShape* shape = param->add_shape();
    for (int d : dims) shape->add_dim(d);
  }

  static void ExpectAll(const Blob<Dtype>& blob, Dtype value) {
    for (int i = 0; i < blob.count(); ++i)
      ASSERT_EQ(value, blob.cpu_data()[i]) << "at " << i;
  }

  Blob<Dtype> a_, b_, c_;
  vector<Blob<Dtype>*> top_;
  vector<Blob<Dtype>*> bottom_;
};

TYPED_TEST_SUITE(DummyDataLayerTest, TestDtypes);

TYPED_TEST(DummyDataLayerTest, LegacyDimsDefaultZero) {
  LayerParameter param;
  DummyDataParameter* p = param.mutable_dummy_data_param();
  p->add_num(5);
  p->add_channels(3);
  p->add_height(2);
  p->add_width(4);
  vector<Blob<TypeParam>*> top{&this->a_};
  DummyDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, top);
  EXPECT_EQ((vector<int>{5, 3, 2, 4}), this->a_.shape());
  this->ExpectAll(this->a_, 0);
  layer.Forward(this->bottom_, top);
  this->ExpectAll(this->a_, 0);
}

TYPED_TEST(DummyDataLayerTest, LegacyDimsPerTop) {
  LayerParameter param;
  DummyDataParameter* p = param.mutable_dummy_data_param();
  p->add_num(5);
  p->add_num(2);
  p->add_num(1);
  p->add_channels(3);
  p->add_height(2);
  p->add_height(1);
  p->add_height(3);
  p->add_width(4);
  DummyDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{5, 3, 2, 4}), this->a_.shape());
  EXPECT_EQ((vector<int>{2, 3, 1, 4}), this->b_.shape());
  EXPECT_EQ((vector<int>{1, 3, 3, 4}), this->c_.shape());
}

TYPED_TEST(DummyDataLayerTest, ConstantFilledOnceOthersRefilled) {
  LayerParameter param;
  DummyDataParameter* p = param.mutable_dummy_data_param();
  this->AddShape(p, {2, 3});
  this->AddShape(p, {4});
  this->AddShape(p, {1, 2, 2});
  FillerParameter* constant = p->add_data_filler();
  constant->set_type("constant");
  constant->set_value(7);
  FillerParameter* uniform = p->add_data_filler();
  uniform->set_type("uniform");
  uniform->set_min(1);
  uniform->set_max(2);
  FillerParameter* gaussian = p->add_data_filler();
  gaussian->set_type("gaussian");
  gaussian->set_std(1);
  DummyDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  EXPECT_EQ((vector<int>{2, 3}), this->a_.shape());
  EXPECT_EQ((vector<int>{4}), this->b_.shape());
  EXPECT_EQ((vector<int>{1, 2, 2}), this->c_.shape());
  this->ExpectAll(this->a_, 7);

  vector<TypeParam> previous;
  for (int iter = 0; iter < 3; ++iter) {
    layer.Forward(this->bottom_, this->top_);
    this->ExpectAll(this->a_, 7);
    vector<TypeParam> current(this->b_.cpu_data(),
                              this->b_.cpu_data() + this->b_.count());
    for (TypeParam v : current) {
      EXPECT_GE(v, 1);
      EXPECT_LE(v, 2);
    }
    EXPECT_NE(previous, current);
    previous = current;
    bool nonzero = false;
    for (int i = 0; i < this->c_.count(); ++i)
      nonzero |= this->c_.cpu_data()[i] != 0;
    EXPECT_TRUE(nonzero);
  }
  // A constant top is not refilled by Forward (as Caffe): it keeps
  // whatever the net wrote into it.
  this->a_.mutable_cpu_data()[0] = 3;
  layer.Forward(this->bottom_, this->top_);
  EXPECT_EQ(3, this->a_.cpu_data()[0]);
}

TYPED_TEST(DummyDataLayerTest, OneFillerSharedByAllTops) {
  LayerParameter param;
  DummyDataParameter* p = param.mutable_dummy_data_param();
  this->AddShape(p, {3, 2});
  FillerParameter* uniform = p->add_data_filler();
  uniform->set_type("uniform");
  uniform->set_min(-1);
  uniform->set_max(0);
  DummyDataLayer<TypeParam> layer(param);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  for (Blob<TypeParam>* top : this->top_) {
    EXPECT_EQ((vector<int>{3, 2}), top->shape());
    for (int i = 0; i < top->count(); ++i) {
      EXPECT_GE(top->cpu_data()[i], -1);
      EXPECT_LE(top->cpu_data()[i], 0);
    }
  }
}

TYPED_TEST(DummyDataLayerTest, BadParamsThrow) {
  {
    // Shape and legacy fields together.
    LayerParameter param;
    DummyDataParameter* p = param.mutable_dummy_data_param();
    this->AddShape(p, {1});
    p->add_num(1);
    p->add_channels(1);
    p->add_height(1);
    p->add_width(1);
    DummyDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    // Two shapes for three tops.
    LayerParameter param;
    param.set_name("dummy");
    DummyDataParameter* p = param.mutable_dummy_data_param();
    this->AddShape(p, {1});
    this->AddShape(p, {2});
    DummyDataLayer<TypeParam> layer(param);
    try {
      layer.SetUp(this->bottom_, this->top_);
      FAIL() << "expected caffe::Error";
    } catch (const Error& e) {
      EXPECT_NE(string::npos, string(e.what()).find("'dummy'"));
    }
  }
  {
    // No shape at all.
    LayerParameter param;
    DummyDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    // Legacy dims without channels.
    LayerParameter param;
    DummyDataParameter* p = param.mutable_dummy_data_param();
    p->add_num(1);
    p->add_height(1);
    p->add_width(1);
    DummyDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
  }
  {
    // Two fillers for three tops, and an unknown filler.
    LayerParameter param;
    DummyDataParameter* p = param.mutable_dummy_data_param();
    this->AddShape(p, {1});
    p->add_data_filler()->set_type("constant");
    p->add_data_filler()->set_type("constant");
    DummyDataLayer<TypeParam> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_, this->top_), Error);
    LayerParameter param2;
    this->AddShape(param2.mutable_dummy_data_param(), {1});
    param2.mutable_dummy_data_param()->add_data_filler()->set_type("nope");
    DummyDataLayer<TypeParam> layer2(param2);
    EXPECT_THROW(layer2.SetUp(this->bottom_, this->top_), Error);
  }
}

TYPED_TEST(DummyDataLayerTest, BackwardReadsNothing) {
  LayerParameter param;
  this->AddShape(param.mutable_dummy_data_param(), {2});
  param.mutable_dummy_data_param()->add_data_filler()->set_type("gaussian");
  DummyDataLayer<TypeParam> layer(param);
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_, this->top_);
  layer.Forward(this->bottom_, this->top_);
  const TypeParam nan = std::numeric_limits<TypeParam>::quiet_NaN();
  for (Blob<TypeParam>* top : this->top_) {
    caffe_set(top->count(), nan, top->mutable_cpu_data());
    caffe_set(top->count(), TypeParam(2), top->mutable_cpu_diff());
  }
  layer.Backward(this->top_, vector<bool>(), this->bottom_);
  EXPECT_EQ(2, this->a_.cpu_diff()[0]);
  layer.Forward(this->bottom_, this->top_);
  EXPECT_FALSE(std::isnan(this->a_.cpu_data()[0]));
}

}  // namespace caffe
