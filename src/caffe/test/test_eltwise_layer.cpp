#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/eltwise_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class EltwiseLayerTest : public ::testing::Test {
 protected:
  EltwiseLayerTest()
      : a_(new Blob<Dtype>(vector<int>{2, 3, 2, 2})),
        b_(new Blob<Dtype>(vector<int>{2, 3, 2, 2})),
        c_(new Blob<Dtype>(vector<int>{2, 3, 2, 2})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    caffe_rng_uniform<Dtype>(a_->count(), Dtype(-1), Dtype(1),
                             a_->mutable_cpu_data());
    caffe_rng_uniform<Dtype>(b_->count(), Dtype(-1), Dtype(1),
                             b_->mutable_cpu_data());
    caffe_rng_uniform<Dtype>(c_->count(), Dtype(-1), Dtype(1),
                             c_->mutable_cpu_data());
    bottom_vec_ = {a_.get(), b_.get(), c_.get()};
    top_vec_ = {top_.get()};
  }
  LayerParameter Param(EltwiseParameter_EltwiseOp op) {
    LayerParameter param;
    param.set_name("eltwise");
    param.mutable_eltwise_param()->set_operation(op);
    return param;
  }
  // Values at least 0.08 apart across the three bottoms, so a finite
  // difference step never changes which one is the maximum.
  void SeparateValues() {
    for (int i = 0; i < 3; ++i) {
      Dtype* d = bottom_vec_[i]->mutable_cpu_data();
      for (int j = 0; j < a_->count(); ++j)
        d[j] = Dtype(0.1) * ((j * 7 + i * 5) % 13) - Dtype(0.6) +
               Dtype(0.01) * i;
    }
  }
  std::unique_ptr<Blob<Dtype> > a_, b_, c_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(EltwiseLayerTest, TestDtypes);

TYPED_TEST(EltwiseLayerTest, SetUp) {
  typedef TypeParam Dtype;
  EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_SUM));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), this->a_->shape());
  EXPECT_STREQ(layer.type(), "Eltwise");
}

TYPED_TEST(EltwiseLayerTest, ForwardProd) {
  typedef TypeParam Dtype;
  EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_PROD));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_->count(); ++i)
    EXPECT_NEAR(this->a_->cpu_data()[i] * this->b_->cpu_data()[i] *
                    this->c_->cpu_data()[i],
                this->top_->cpu_data()[i], 1e-6);
}

TYPED_TEST(EltwiseLayerTest, ForwardSumWithCoeff) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_SUM);
  param.mutable_eltwise_param()->add_coeff(1);
  param.mutable_eltwise_param()->add_coeff(-0.5);
  param.mutable_eltwise_param()->add_coeff(2);
  EltwiseLayer<Dtype> layer(param);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_->count(); ++i)
    EXPECT_NEAR(this->a_->cpu_data()[i] - 0.5 * this->b_->cpu_data()[i] +
                    2 * this->c_->cpu_data()[i],
                this->top_->cpu_data()[i], 1e-5);
  // Without coefficients: a plain sum.
  EltwiseLayer<Dtype> plain(this->Param(EltwiseParameter_EltwiseOp_SUM));
  plain.SetUp(this->bottom_vec_, this->top_vec_);
  plain.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_->count(); ++i)
    EXPECT_NEAR(this->a_->cpu_data()[i] + this->b_->cpu_data()[i] +
                    this->c_->cpu_data()[i],
                this->top_->cpu_data()[i], 1e-5);
}

TYPED_TEST(EltwiseLayerTest, ForwardAndBackwardMax) {
  typedef TypeParam Dtype;
  EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_MAX));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(layer.InternalBytes(), this->a_->count() * sizeof(int));
  caffe_rng_gaussian<Dtype>(this->top_->count(), Dtype(0), Dtype(1),
                            this->top_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>(3, true), this->bottom_vec_);
  for (int i = 0; i < this->top_->count(); ++i) {
    int arg = 0;
    for (int k = 1; k < 3; ++k)
      if (this->bottom_vec_[k]->cpu_data()[i] >
          this->bottom_vec_[arg]->cpu_data()[i])
        arg = k;
    EXPECT_EQ(this->bottom_vec_[arg]->cpu_data()[i], this->top_->cpu_data()[i]);
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(k == arg ? this->top_->cpu_diff()[i] : Dtype(0),
                this->bottom_vec_[k]->cpu_diff()[i]);
  }
}

TYPED_TEST(EltwiseLayerTest, MaxTies) {
  typedef TypeParam Dtype;
  // As in Caffe: bottom 1 wins a tie with bottom 0; later bottoms must be
  // strictly larger to win.
  caffe_set(this->a_->count(), Dtype(1), this->a_->mutable_cpu_data());
  caffe_set(this->b_->count(), Dtype(1), this->b_->mutable_cpu_data());
  caffe_set(this->c_->count(), Dtype(1), this->c_->mutable_cpu_data());
  EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_MAX));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_set(this->top_->count(), Dtype(1), this->top_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>(3, true), this->bottom_vec_);
  EXPECT_EQ(this->a_->asum_diff(), Dtype(0));
  EXPECT_EQ(this->b_->asum_diff(), Dtype(this->b_->count()));
  EXPECT_EQ(this->c_->asum_diff(), Dtype(0));
}

TYPED_TEST(EltwiseLayerTest, Gradients) {
  typedef TypeParam Dtype;
  {
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_PROD));
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
  }
  {
    LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_PROD);
    param.mutable_eltwise_param()->set_stable_prod_grad(false);
    EltwiseLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
  }
  {
    LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_SUM);
    param.mutable_eltwise_param()->add_coeff(1);
    param.mutable_eltwise_param()->add_coeff(-0.5);
    param.mutable_eltwise_param()->add_coeff(2);
    EltwiseLayer<Dtype> layer(param);
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
  }
  {
    this->SeparateValues();
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_MAX));
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(EltwiseLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  {
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_SUM));
    EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
  {
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_PROD));
    EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
  {
    LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_PROD);
    param.mutable_eltwise_param()->set_stable_prod_grad(false);
    EltwiseLayer<Dtype> layer(param);
    EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData | kReadsTopData);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
  {
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_MAX));
    EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
    EXPECT_FALSE(layer.Memory().in_place);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
}

TYPED_TEST(EltwiseLayerTest, BadParamsAndShapesThrow) {
  typedef TypeParam Dtype;
  {
    Blob<Dtype> other(vector<int>{2, 3, 2, 3});
    vector<Blob<Dtype>*> bottom{this->a_.get(), &other};
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_SUM));
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const string msg = e.what();
      EXPECT_NE(msg.find("eltwise"), string::npos) << msg;
      EXPECT_NE(msg.find("2 3 2 3"), string::npos) << msg;
    }
  }
  {
    LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_SUM);
    param.mutable_eltwise_param()->add_coeff(1);
    EltwiseLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_PROD);
    for (int i = 0; i < 3; ++i) param.mutable_eltwise_param()->add_coeff(1);
    EltwiseLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    vector<Blob<Dtype>*> one{this->a_.get()};
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_SUM));
    EXPECT_THROW(layer.SetUp(one, this->top_vec_), Error);
  }
}

}  // namespace caffe
