#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/eltwise_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {
namespace {

// Runs forward and backward twice with the same top diffs; the second time
// every input the layer does not declare in BackwardReads() is overwritten
// with NaN before backward.  Bottom and parameter diffs must not change.
// The bottoms' data is restored afterwards.
template <typename Dtype>
void CheckBackwardReads(Layer<Dtype>* layer, const vector<Blob<Dtype>*>& bottom,
                        const vector<Blob<Dtype>*>& top,
                        const vector<bool>& propagate_down) {
  vector<vector<Dtype> > saved;
  for (auto* b : bottom)
    saved.emplace_back(b->cpu_data(), b->cpu_data() + b->count());
  layer->SetUp(bottom, top);
  vector<vector<Dtype> > diffs[2];
  for (int pass = 0; pass < 2; ++pass) {
    layer->Forward(bottom, top);
    for (size_t i = 0; i < top.size(); ++i) {
      Dtype* d = top[i]->mutable_cpu_diff();
      for (int j = 0; j < top[i]->count(); ++j)
        d[j] = Dtype(0.1) * ((j * 7 + i * 3) % 11) - Dtype(0.5);
    }
    for (auto& p : layer->blobs())
      caffe_set(p->count(), Dtype(0), p->mutable_cpu_diff());
    if (pass == 1) {
      const Dtype nan = std::numeric_limits<Dtype>::quiet_NaN();
      const int reads = layer->BackwardReads();
      if (!(reads & kReadsBottomData))
        for (auto* b : bottom)
          caffe_set(b->count(), nan, b->mutable_cpu_data());
      if (!(reads & kReadsTopData))
        for (auto* t : top) caffe_set(t->count(), nan, t->mutable_cpu_data());
    }
    layer->Backward(top, propagate_down, bottom);
    for (size_t i = 0; i < bottom.size(); ++i) {
      if (!propagate_down[i]) continue;
      const Dtype* d = bottom[i]->cpu_diff();
      diffs[pass].emplace_back(d, d + bottom[i]->count());
    }
    for (auto& p : layer->blobs())
      diffs[pass].emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
  }
  for (size_t i = 0; i < bottom.size(); ++i)
    caffe_copy(bottom[i]->count(), saved[i].data(),
               bottom[i]->mutable_cpu_data());
  ASSERT_EQ(diffs[0].size(), diffs[1].size());
  for (size_t b = 0; b < diffs[0].size(); ++b)
    for (size_t j = 0; j < diffs[0][b].size(); ++j)
      EXPECT_EQ(diffs[0][b][j], diffs[1][b][j]) << "diff " << b << " at " << j;
}

template <typename Dtype>
void FillGaussian(Blob<Dtype>* blob) {
  caffe_rng_gaussian<Dtype>(blob->count(), Dtype(0), Dtype(1),
                            blob->mutable_cpu_data());
}

}  // namespace

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
    EXPECT_EQ(layer.BackwardReads(), kReadsNothing);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
  {
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_PROD));
    EXPECT_EQ(layer.BackwardReads(), kReadsBottomData);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
  {
    LayerParameter param = this->Param(EltwiseParameter_EltwiseOp_PROD);
    param.mutable_eltwise_param()->set_stable_prod_grad(false);
    EltwiseLayer<Dtype> layer(param);
    EXPECT_EQ(layer.BackwardReads(), kReadsBottomData | kReadsTopData);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>(3, true));
  }
  {
    EltwiseLayer<Dtype> layer(this->Param(EltwiseParameter_EltwiseOp_MAX));
    EXPECT_EQ(layer.BackwardReads(), kReadsNothing);
    EXPECT_FALSE(layer.AllowsInPlace());
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
