// Tests for ThresholdLayer: forward values, in-place forward, and that
// backward refuses propagate_down (the layer has no gradient).
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/layers/threshold_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {

template <typename Dtype>
class ThresholdLayerTest : public ::testing::Test {
 protected:
  ThresholdLayerTest() : bottom_(vector<int>{2, 3, 6, 5}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(bottom_.count(), Dtype(0), Dtype(1),
                              bottom_.mutable_cpu_data());
    // Exact hits on the threshold must give 0 (strictly greater is 1).
    bottom_.mutable_cpu_data()[0] = Dtype(0);
    bottom_.mutable_cpu_data()[1] = Dtype(0.5);
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  LayerParameter Param(float threshold, bool set = true) {
    LayerParameter p;
    p.set_name("thresh");
    p.set_type("Threshold");
    if (set) p.mutable_threshold_param()->set_threshold(threshold);
    return p;
  }
  Blob<Dtype> bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ThresholdLayerTest, TestDtypes);

TYPED_TEST(ThresholdLayerTest, ForwardDefaultThreshold) {
  typedef TypeParam Dtype;
  ThresholdLayer<Dtype> layer(this->Param(0, false));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(this->bottom_.shape(), this->top_.shape());
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(Dtype(0), this->top_.cpu_data()[0]);
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    EXPECT_EQ(x > 0 ? Dtype(1) : Dtype(0), this->top_.cpu_data()[i]);
  }
}

TYPED_TEST(ThresholdLayerTest, ForwardThreshold) {
  typedef TypeParam Dtype;
  ThresholdLayer<Dtype> layer(this->Param(0.5f));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(Dtype(0), this->top_.cpu_data()[1]);
  int ones = 0;
  for (int i = 0; i < this->bottom_.count(); ++i) {
    const Dtype x = this->bottom_.cpu_data()[i];
    const Dtype y = this->top_.cpu_data()[i];
    EXPECT_EQ(x > Dtype(0.5f) ? Dtype(1) : Dtype(0), y);
    ones += y == Dtype(1);
  }
  EXPECT_GT(ones, 0);
  EXPECT_LT(ones, this->bottom_.count());
}

TYPED_TEST(ThresholdLayerTest, ForwardInPlace) {
  typedef TypeParam Dtype;
  ThresholdLayer<Dtype> ref(this->Param(0.2f));
  ref.SetUp(this->bottom_vec_, this->top_vec_);
  ref.Forward(this->bottom_vec_, this->top_vec_);
  Blob<Dtype> shared;
  shared.CopyFrom(this->bottom_, false, true);
  vector<Blob<Dtype>*> v(1, &shared);
  ThresholdLayer<Dtype> inpl(this->Param(0.2f));
  EXPECT_TRUE(inpl.Memory().in_place);
  inpl.SetUp(v, v);
  inpl.Forward(v, v);
  for (int i = 0; i < shared.count(); ++i)
    EXPECT_EQ(this->top_.cpu_data()[i], shared.cpu_data()[i]);
}

TYPED_TEST(ThresholdLayerTest, BackwardRefusesPropagateDown) {
  typedef TypeParam Dtype;
  ThresholdLayer<Dtype> layer(this->Param(0));
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_set(this->bottom_.count(), Dtype(7), this->bottom_.mutable_cpu_diff());
  // Nothing asked: a no-op that leaves the bottom diff alone.
  EXPECT_NO_THROW(
      layer.Backward(this->top_vec_, vector<bool>(1, false), this->bottom_vec_));
  EXPECT_EQ(Dtype(7), this->bottom_.cpu_diff()[3]);
  try {
    layer.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
    FAIL() << "Backward with propagate_down should throw";
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("thresh"), string::npos) << e.what();
  }
}

TYPED_TEST(ThresholdLayerTest, RegistryAndBlobCounts) {
  typedef TypeParam Dtype;
  shared_ptr<Layer<Dtype> > layer =
      LayerRegistry<Dtype>::CreateLayer(this->Param(0));
  EXPECT_STREQ("Threshold", layer->type());
  vector<Blob<Dtype>*> two(2, &this->bottom_);
  EXPECT_THROW(layer->SetUp(two, this->top_vec_), Error);
}

}  // namespace caffe
