// Tests for ParameterLayer: shape and zero start, forward copy, backward
// accumulation into the parameter diff, gradient, declarations and errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/layers/parameter_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class ParameterLayerTest : public ::testing::Test {
 protected:
  ParameterLayerTest() {
    Caffe::set_random_seed(1701);
    top_vec_.push_back(&top_);
  }
  LayerParameter Param() {
    LayerParameter p;
    p.set_name("param");
    p.set_type("Parameter");
    BlobShape* s = p.mutable_parameter_param()->mutable_shape();
    s->add_dim(2);
    s->add_dim(3);
    s->add_dim(4);
    return p;
  }
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ParameterLayerTest, TestDtypes);

TYPED_TEST(ParameterLayerTest, SetUpShapeAndZeros) {
  typedef TypeParam Dtype;
  ParameterLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(1u, layer.blobs().size());
  const vector<int> want{2, 3, 4};
  EXPECT_EQ(want, layer.blobs()[0]->shape());
  EXPECT_EQ(want, this->top_.shape());
  for (int i = 0; i < 24; ++i) EXPECT_EQ(Dtype(0), layer.blobs()[0]->cpu_data()[i]);
  EXPECT_TRUE(layer.param_propagate_down(0));
}

TYPED_TEST(ParameterLayerTest, ForwardCopies) {
  typedef TypeParam Dtype;
  ParameterLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  Blob<Dtype>& w = *layer.blobs()[0];
  caffe_rng_gaussian<Dtype>(w.count(), Dtype(0), Dtype(1), w.mutable_cpu_data());
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < w.count(); ++i)
    EXPECT_EQ(w.cpu_data()[i], this->top_.cpu_data()[i]);
  // The top is a copy: writing it leaves the parameter alone.
  const Dtype before = w.cpu_data()[5];
  this->top_.mutable_cpu_data()[5] = before + 1;
  EXPECT_EQ(before, w.cpu_data()[5]);
}

TYPED_TEST(ParameterLayerTest, BackwardAccumulates) {
  typedef TypeParam Dtype;
  ParameterLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  Blob<Dtype>& w = *layer.blobs()[0];
  caffe_set(w.count(), Dtype(1), w.mutable_cpu_diff());
  caffe_rng_gaussian<Dtype>(this->top_.count(), Dtype(0), Dtype(1),
                            this->top_.mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>(), this->bottom_vec_);
  for (int i = 0; i < w.count(); ++i)
    EXPECT_EQ(Dtype(1) + this->top_.cpu_diff()[i], w.cpu_diff()[i]);
  // Frozen parameter: no change.
  layer.set_param_propagate_down(0, false);
  layer.Backward(this->top_vec_, vector<bool>(), this->bottom_vec_);
  for (int i = 0; i < w.count(); ++i)
    EXPECT_EQ(Dtype(1) + this->top_.cpu_diff()[i], w.cpu_diff()[i]);
}

TYPED_TEST(ParameterLayerTest, Gradient) {
  typedef TypeParam Dtype;
  ParameterLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  caffe_rng_gaussian<Dtype>(layer.blobs()[0]->count(), Dtype(0), Dtype(1),
                            layer.blobs()[0]->mutable_cpu_data());
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ParameterLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  ParameterLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  caffe_rng_gaussian<Dtype>(layer.blobs()[0]->count(), Dtype(0), Dtype(1),
                            layer.blobs()[0]->mutable_cpu_data());
  contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                           this->top_vec_);
}

TYPED_TEST(ParameterLayerTest, LoadedBlobKeptOrRejected) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param();
  BlobProto* b = p.add_blobs();
  for (int d : {2, 3, 4}) b->mutable_shape()->add_dim(d);
  for (int i = 0; i < 24; ++i) b->add_data(0.5f * i);
  {
    ParameterLayer<Dtype> layer(p);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(Dtype(0.5 * 7), this->top_.cpu_data()[7]);
  }
  p.mutable_parameter_param()->mutable_shape()->set_dim(2, 5);
  ParameterLayer<Dtype> bad(p);
  EXPECT_THROW(bad.SetUp(this->bottom_vec_, this->top_vec_), Error);
}

TYPED_TEST(ParameterLayerTest, RejectsBottoms) {
  typedef TypeParam Dtype;
  shared_ptr<Layer<Dtype> > layer =
      LayerRegistry<Dtype>::CreateLayer(this->Param());
  EXPECT_STREQ("Parameter", layer->type());
  Blob<Dtype> b(vector<int>{2});
  vector<Blob<Dtype>*> one(1, &b);
  EXPECT_THROW(layer->SetUp(one, this->top_vec_), Error);
}

}  // namespace caffe
