#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/filler.hpp"
#include "caffe/layers/inner_product_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class InnerProductLayerTest : public ::testing::Test {
 protected:
  InnerProductLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 3, 2, 2})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top_vec_.push_back(top_.get());
  }

  LayerParameter Param(int num_output, bool bias, bool transpose,
                       int axis = 1) {
    LayerParameter param;
    param.set_name("ip");
    InnerProductParameter* p = param.mutable_inner_product_param();
    p->set_num_output(num_output);
    p->set_bias_term(bias);
    p->set_transpose(transpose);
    p->set_axis(axis);
    p->mutable_weight_filler()->set_type("uniform");
    p->mutable_weight_filler()->set_min(-1);
    p->mutable_weight_filler()->set_max(1);
    p->mutable_bias_filler()->set_type("uniform");
    p->mutable_bias_filler()->set_min(1);
    p->mutable_bias_filler()->set_max(2);
    return param;
  }

  // top[m][n] = sum_k x[m][k] * W(n, k) + b[n], W(n, k) read according to
  // the storage order.
  void CheckForward(InnerProductLayer<Dtype>* layer, int M, int K, int N,
                    bool bias, bool transpose) {
    const Dtype* x = bottom_->cpu_data();
    const Dtype* w = layer->blobs()[0]->cpu_data();
    const Dtype* y = top_->cpu_data();
    ASSERT_EQ(top_->count(), M * N);
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        Dtype expected = bias ? layer->blobs()[1]->cpu_data()[n] : Dtype(0);
        for (int k = 0; k < K; ++k)
          expected += x[m * K + k] * (transpose ? w[k * N + n] : w[n * K + k]);
        EXPECT_NEAR(expected, y[m * N + n], 1e-4) << m << "," << n;
      }
    }
  }

  std::unique_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(InnerProductLayerTest, TestDtypes);

TYPED_TEST(InnerProductLayerTest, SetUpShapes) {
  typedef TypeParam Dtype;
  {
    InnerProductLayer<Dtype> layer(this->Param(5, true, false));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(this->top_->shape(), (vector<int>{2, 5}));
    ASSERT_EQ(layer.blobs().size(), 2u);
    EXPECT_EQ(layer.blobs()[0]->shape(), (vector<int>{5, 12}));
    EXPECT_EQ(layer.blobs()[1]->shape(), (vector<int>{5}));
  }
  {
    InnerProductLayer<Dtype> layer(this->Param(5, false, true, 2));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(this->top_->shape(), (vector<int>{2, 3, 5}));
    ASSERT_EQ(layer.blobs().size(), 1u);
    EXPECT_EQ(layer.blobs()[0]->shape(), (vector<int>{4, 5}));
  }
  {
    InnerProductLayer<Dtype> layer(this->Param(5, true, false, -1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(this->top_->shape(), (vector<int>{2, 3, 2, 5}));
  }
  EXPECT_STREQ(InnerProductLayer<Dtype>(this->Param(1, true, false)).type(),
               "InnerProduct");
}

TYPED_TEST(InnerProductLayerTest, ForwardMatchesLoops) {
  typedef TypeParam Dtype;
  for (int transpose = 0; transpose < 2; ++transpose) {
    for (int bias = 0; bias < 2; ++bias) {
      InnerProductLayer<Dtype> layer(this->Param(4, bias, transpose));
      layer.SetUp(this->bottom_vec_, this->top_vec_);
      layer.Forward(this->bottom_vec_, this->top_vec_);
      this->CheckForward(&layer, 2, 12, 4, bias, transpose);
    }
  }
  // axis 2: M = 6 rows of K = 4.
  InnerProductLayer<Dtype> layer(this->Param(3, true, false, 2));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  this->CheckForward(&layer, 6, 4, 3, true, false);
}

TYPED_TEST(InnerProductLayerTest, TransposeEquivalent) {
  typedef TypeParam Dtype;
  InnerProductLayer<Dtype> plain(this->Param(4, true, false));
  plain.SetUp(this->bottom_vec_, this->top_vec_);
  plain.Forward(this->bottom_vec_, this->top_vec_);
  vector<Dtype> expected(this->top_->cpu_data(),
                         this->top_->cpu_data() + this->top_->count());
  InnerProductLayer<Dtype> trans(this->Param(4, true, true));
  trans.SetUp(this->bottom_vec_, this->top_vec_);
  // Copy W^T and the bias into the transposed layer.
  const Dtype* w = plain.blobs()[0]->cpu_data();
  Dtype* wt = trans.blobs()[0]->mutable_cpu_data();
  for (int n = 0; n < 4; ++n)
    for (int k = 0; k < 12; ++k) wt[k * 4 + n] = w[n * 12 + k];
  trans.blobs()[1]->CopyFrom(*plain.blobs()[1]);
  trans.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_->count(); ++i)
    EXPECT_NEAR(expected[i], this->top_->cpu_data()[i], 1e-5);
}

TYPED_TEST(InnerProductLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (int transpose = 0; transpose < 2; ++transpose) {
    for (int bias = 0; bias < 2; ++bias) {
      InnerProductLayer<Dtype> layer(this->Param(3, bias, transpose));
      GradientChecker<Dtype> checker(1e-2, 1e-3);
      checker.CheckGradientExhaustive(&layer, this->bottom_vec_,
                                      this->top_vec_);
    }
  }
  InnerProductLayer<Dtype> layer(this->Param(3, true, false, 2));
  GradientChecker<Dtype> checker(1e-2, 1e-3);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(InnerProductLayerTest, ParamDiffsAccumulate) {
  typedef TypeParam Dtype;
  InnerProductLayer<Dtype> layer(this->Param(3, true, false));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_set(this->top_->count(), Dtype(1), this->top_->mutable_cpu_diff());
  for (auto& p : layer.blobs())
    caffe_set(p->count(), Dtype(0), p->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true}, this->bottom_vec_);
  vector<Dtype> once(layer.blobs()[0]->cpu_diff(),
                     layer.blobs()[0]->cpu_diff() + layer.blobs()[0]->count());
  layer.Backward(this->top_vec_, vector<bool>{true}, this->bottom_vec_);
  for (size_t i = 0; i < once.size(); ++i)
    EXPECT_NEAR(2 * once[i], layer.blobs()[0]->cpu_diff()[i], 1e-5);
  // Bias diff: column sums of the top diff (all ones, M = 2).
  for (int n = 0; n < 3; ++n)
    EXPECT_NEAR(Dtype(4), layer.blobs()[1]->cpu_diff()[n], 1e-6);
}

TYPED_TEST(InnerProductLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  for (int transpose = 0; transpose < 2; ++transpose) {
    InnerProductLayer<Dtype> layer(this->Param(3, true, transpose));
    EXPECT_EQ(layer.Memory().backward_reads, kReadsBottomData);
    EXPECT_FALSE(layer.Memory().in_place);
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                       vector<bool>{true});
  }
}

TYPED_TEST(InnerProductLayerTest, BadParamsAndShapesThrow) {
  typedef TypeParam Dtype;
  {
    InnerProductLayer<Dtype> layer(this->Param(0, true, false));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    InnerProductLayer<Dtype> layer(this->Param(3, true, false, 4));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    // The input size per sample changes after the weights were made.
    InnerProductLayer<Dtype> layer(this->Param(3, true, false));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    this->bottom_->Reshape(vector<int>{2, 3, 2, 3});
    try {
      layer.Forward(this->bottom_vec_, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find("ip"), string::npos) << e.what();
      EXPECT_NE(string(e.what()).find("2 3 2 3"), string::npos) << e.what();
    }
    // A different batch size is fine.
    this->bottom_->Reshape(vector<int>{5, 3, 2, 2});
    layer.Forward(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(this->top_->shape(), (vector<int>{5, 3}));
  }
  {
    // Weights given with the layer that do not fit the input.
    LayerParameter param = this->Param(3, false, false);
    BlobShape* shape = param.add_blobs()->mutable_shape();
    shape->add_dim(3);
    shape->add_dim(7);
    for (int i = 0; i < 21; ++i) param.mutable_blobs(0)->add_data(0);
    InnerProductLayer<Dtype> layer(param);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
}

TYPED_TEST(InnerProductLayerTest, CreatedByRegistry) {
  typedef TypeParam Dtype;
  LayerParameter param = this->Param(3, true, false);
  param.set_type("InnerProduct");
  shared_ptr<Layer<Dtype> > layer = LayerRegistry<Dtype>::CreateLayer(param);
  EXPECT_STREQ(layer->type(), "InnerProduct");
}

}  // namespace caffe
