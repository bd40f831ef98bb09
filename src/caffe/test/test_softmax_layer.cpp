#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class SoftmaxLayerTest : public ::testing::Test {
 protected:
  SoftmaxLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 5, 2, 3})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top_vec_.push_back(top_.get());
  }
  LayerParameter Param(int axis) {
    LayerParameter param;
    param.set_name("softmax");
    param.mutable_softmax_param()->set_axis(axis);
    return param;
  }
  // Softmax of `x` along `axis`, straight from the definition (in double).
  static vector<double> Reference(const Blob<Dtype>& x, int axis) {
    const int outer = x.count(0, axis), channels = x.shape(axis),
              inner = x.count(axis + 1);
    vector<double> y(x.count());
    for (int o = 0; o < outer; ++o)
      for (int k = 0; k < inner; ++k) {
        double mx = -1e300, sum = 0;
        for (int c = 0; c < channels; ++c)
          mx = std::max(mx, double(x.cpu_data()[(o * channels + c) * inner + k]));
        for (int c = 0; c < channels; ++c)
          sum += std::exp(x.cpu_data()[(o * channels + c) * inner + k] - mx);
        for (int c = 0; c < channels; ++c) {
          const int i = (o * channels + c) * inner + k;
          y[i] = std::exp(x.cpu_data()[i] - mx) / sum;
        }
      }
    return y;
  }
  std::unique_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(SoftmaxLayerTest, TestDtypes);

TYPED_TEST(SoftmaxLayerTest, ForwardMatchesDefinition) {
  typedef TypeParam Dtype;
  const int axes[] = {1, 0, 3, -1, -2};
  for (int axis : axes) {
    SoftmaxLayer<Dtype> layer(this->Param(axis));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    ASSERT_EQ(this->top_->shape(), this->bottom_->shape());
    vector<double> expected = this->Reference(
        *this->bottom_, this->bottom_->CanonicalAxisIndex(axis));
    for (int i = 0; i < this->top_->count(); ++i)
      EXPECT_NEAR(expected[i], this->top_->cpu_data()[i], 1e-6) << axis;
  }
  EXPECT_STREQ(SoftmaxLayer<Dtype>(this->Param(1)).type(), "Softmax");
}

TYPED_TEST(SoftmaxLayerTest, LargeInputsDoNotOverflow) {
  typedef TypeParam Dtype;
  Dtype* d = this->bottom_->mutable_cpu_data();
  for (int i = 0; i < this->bottom_->count(); ++i) d[i] = 1000 + (i % 5);
  SoftmaxLayer<Dtype> layer(this->Param(1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_->count(); ++i) {
    EXPECT_TRUE(std::isfinite(this->top_->cpu_data()[i]));
    EXPECT_GT(this->top_->cpu_data()[i], Dtype(0));
  }
}

TYPED_TEST(SoftmaxLayerTest, Gradient) {
  typedef TypeParam Dtype;
  const int axes[] = {1, -1};
  for (int axis : axes) {
    SoftmaxLayer<Dtype> layer(this->Param(axis));
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(SoftmaxLayerTest, InPlaceMatchesOutOfPlace) {
  typedef TypeParam Dtype;
  SoftmaxLayer<Dtype> layer(this->Param(1));
  EXPECT_TRUE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_rng_gaussian<Dtype>(this->top_->count(), Dtype(0), Dtype(1),
                            this->top_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true}, this->bottom_vec_);

  Blob<Dtype> blob;
  blob.CopyFrom(*this->bottom_, false, true);
  caffe_copy(blob.count(), this->top_->cpu_diff(), blob.mutable_cpu_diff());
  vector<Blob<Dtype>*> same{&blob};
  SoftmaxLayer<Dtype> in_place(this->Param(1));
  in_place.SetUp(same, same);
  in_place.Forward(same, same);
  in_place.Backward(same, vector<bool>{true}, same);
  for (int i = 0; i < blob.count(); ++i) {
    EXPECT_EQ(this->top_->cpu_data()[i], blob.cpu_data()[i]);
    EXPECT_EQ(this->bottom_->cpu_diff()[i], blob.cpu_diff()[i]);
  }
}

TYPED_TEST(SoftmaxLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  SoftmaxLayer<Dtype> layer(this->Param(1));
  EXPECT_EQ(layer.Memory().backward_reads, kReadsTopData);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true});
}

TYPED_TEST(SoftmaxLayerTest, BadAxisThrows) {
  typedef TypeParam Dtype;
  SoftmaxLayer<Dtype> layer(this->Param(4));
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  SoftmaxLayer<Dtype> layer2(this->Param(-5));
  EXPECT_THROW(layer2.SetUp(this->bottom_vec_, this->top_vec_), Error);
}

}  // namespace caffe
