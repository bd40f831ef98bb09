// Tests for InfogainLossLayer (Caffe 1.0: softmax inside): loss against a
// double-precision softmax + infogain computation, H from a third bottom and
// from a binaryproto file, identity H == SoftmaxWithLoss, ignore_label and
// normalization modes, a non-default axis, the probability top, gradients,
// the BackwardReads declaration and errors (missing file named, H size,
// labels).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/infogain_loss_layer.hpp"
#include "caffe/layers/softmax_loss_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

template <typename Dtype>
class InfogainLossLayerTest : public ::testing::Test {
 protected:
  static const int kN = 4, kK = 5, kH = 2, kW = 3;
  InfogainLossLayerTest()
      : score_(vector<int>{kN, kK, kH, kW}), label_(vector<int>{kN, 1, kH, kW}),
        infogain_(vector<int>{1, 1, kK, kK}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(score_.count(), Dtype(0), Dtype(2),
                              score_.mutable_cpu_data());
    for (int i = 0; i < label_.count(); ++i)
      label_.mutable_cpu_data()[i] = Dtype((i * 7 + 2) % kK);
    caffe_rng_uniform<Dtype>(infogain_.count(), Dtype(0), Dtype(1),
                             infogain_.mutable_cpu_data());
    bottom2_ = {&score_, &label_};
    bottom3_ = {&score_, &label_, &infogain_};
    top_vec_.push_back(&loss_);
  }
  LayerParameter Param() {
    LayerParameter p;
    p.set_name("infogain");
    p.set_type("InfogainLoss");
    return p;
  }
  // Sum over non-ignored positions of -sum_k H[l, k] log p_k (softmax over
  // axis 1 of the N x K x H x W scores), and the count of such positions.
  double SummedLoss(const Blob<Dtype>& H, int ignore, int* valid) const {
    const int inner = kH * kW;
    double loss = 0;
    *valid = 0;
    for (int n = 0; n < kN; ++n) {
      for (int j = 0; j < inner; ++j) {
        const int l = static_cast<int>(label_.cpu_data()[n * inner + j]);
        if (l == ignore) continue;
        double mx = -1e300, z = 0;
        for (int k = 0; k < kK; ++k)
          mx = std::max<double>(mx, score_.cpu_data()[(n * kK + k) * inner + j]);
        for (int k = 0; k < kK; ++k)
          z += std::exp(score_.cpu_data()[(n * kK + k) * inner + j] - mx);
        for (int k = 0; k < kK; ++k) {
          const double p =
              std::exp(score_.cpu_data()[(n * kK + k) * inner + j] - mx) / z;
          loss -= H.cpu_data()[l * kK + k] * std::log(std::max(p, 1e-20));
        }
        ++*valid;
      }
    }
    return loss;
  }
  string TempPath(const char* tag) const {
    return ::testing::TempDir() + "lc_infogain_" + tag +
           (sizeof(Dtype) == 4 ? "_f" : "_d") + ".binaryproto";
  }
  Blob<Dtype> score_, label_, infogain_, loss_;
  vector<Blob<Dtype>*> bottom2_, bottom3_, top_vec_;
};

TYPED_TEST_SUITE(InfogainLossLayerTest, TestDtypes);

TYPED_TEST(InfogainLossLayerTest, ForwardMatrixBottom) {
  typedef TypeParam Dtype;
  InfogainLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom3_, this->top_vec_);
  EXPECT_EQ(0, this->loss_.num_axes());
  const Dtype ret = layer.Forward(this->bottom3_, this->top_vec_);
  int valid;
  const double want = this->SummedLoss(this->infogain_, -1, &valid) / valid;
  EXPECT_EQ(24, valid);
  EXPECT_NEAR(want, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, want));
  EXPECT_NEAR(want, ret, 1e-5 * std::max(1.0, want));
}

TYPED_TEST(InfogainLossLayerTest, ForwardMatrixFromSource) {
  typedef TypeParam Dtype;
  BlobProto proto;
  this->infogain_.ToProto(&proto);
  const string path = this->TempPath("src");
  WriteProtoToBinaryFile(proto, path);
  LayerParameter p = this->Param();
  p.mutable_infogain_loss_param()->set_source(path);
  InfogainLossLayer<Dtype> layer(p);
  layer.SetUp(this->bottom2_, this->top_vec_);
  layer.Forward(this->bottom2_, this->top_vec_);
  int valid;
  const double want = this->SummedLoss(this->infogain_, -1, &valid) / valid;
  EXPECT_NEAR(want, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, want));
  // A third bottom takes precedence over the file.
  Blob<Dtype> other(vector<int>{5, 5});
  caffe_set(25, Dtype(2), other.mutable_cpu_data());
  vector<Blob<Dtype>*> b3{&this->score_, &this->label_, &other};
  InfogainLossLayer<Dtype> layer3(p);
  layer3.SetUp(b3, this->top_vec_);
  layer3.Forward(b3, this->top_vec_);
  const double want3 = this->SummedLoss(other, -1, &valid) / valid;
  EXPECT_NEAR(want3, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, want3));
  std::remove(path.c_str());
}

TYPED_TEST(InfogainLossLayerTest, IdentityMatchesSoftmaxWithLoss) {
  typedef TypeParam Dtype;
  caffe_set(this->infogain_.count(), Dtype(0),
            this->infogain_.mutable_cpu_data());
  for (int k = 0; k < this->kK; ++k)
    this->infogain_.mutable_cpu_data()[k * this->kK + k] = 1;
  InfogainLossLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom3_, this->top_vec_);
  layer.Forward(this->bottom3_, this->top_vec_);
  Blob<Dtype> ref_loss;
  vector<Blob<Dtype>*> ref_top(1, &ref_loss);
  LayerParameter sp;
  sp.set_name("softmax_loss");
  sp.set_type("SoftmaxWithLoss");
  SoftmaxWithLossLayer<Dtype> ref(sp);
  ref.SetUp(this->bottom2_, ref_top);
  ref.Forward(this->bottom2_, ref_top);
  EXPECT_NEAR(ref_loss.cpu_data()[0], this->loss_.cpu_data()[0], 1e-5);
  // Same gradient too.
  this->loss_.mutable_cpu_diff()[0] = 1;
  layer.Backward(this->top_vec_, vector<bool>{true, false, false},
                 this->bottom3_);
  vector<Dtype> diff(this->score_.cpu_diff(),
                     this->score_.cpu_diff() + this->score_.count());
  ref.Backward(ref_top, vector<bool>{true, false}, this->bottom2_);
  for (int i = 0; i < this->score_.count(); ++i)
    EXPECT_NEAR(this->score_.cpu_diff()[i], diff[i], 1e-6);
}

TYPED_TEST(InfogainLossLayerTest, IgnoreLabelAndNormalization) {
  typedef TypeParam Dtype;
  const int ignore = 3;
  int valid;
  const double sum = this->SummedLoss(this->infogain_, ignore, &valid);
  ASSERT_GT(valid, 0);
  ASSERT_LT(valid, 24);
  struct Case {
    LossParameter_NormalizationMode mode;
    double divisor;
  };
  const Case cases[] = {
      {LossParameter_NormalizationMode_VALID, double(valid)},
      {LossParameter_NormalizationMode_FULL, 24.0},
      {LossParameter_NormalizationMode_BATCH_SIZE, 4.0},
      {LossParameter_NormalizationMode_NONE, 1.0}};
  for (const Case& c : cases) {
    LayerParameter p = this->Param();
    p.mutable_loss_param()->set_ignore_label(ignore);
    p.mutable_loss_param()->set_normalization(c.mode);
    InfogainLossLayer<Dtype> layer(p);
    layer.SetUp(this->bottom3_, this->top_vec_);
    layer.Forward(this->bottom3_, this->top_vec_);
    const double want = sum / c.divisor;
    EXPECT_NEAR(want, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, want))
        << "mode " << c.mode;
  }
  // The deprecated normalize = false means BATCH_SIZE.
  LayerParameter p = this->Param();
  p.mutable_loss_param()->set_ignore_label(ignore);
  p.mutable_loss_param()->set_normalize(false);
  InfogainLossLayer<Dtype> layer(p);
  layer.SetUp(this->bottom3_, this->top_vec_);
  layer.Forward(this->bottom3_, this->top_vec_);
  EXPECT_NEAR(sum / 4, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, sum));
  // Ignored positions get no gradient.
  this->loss_.mutable_cpu_diff()[0] = 1;
  layer.Backward(this->top_vec_, vector<bool>{true, false, false},
                 this->bottom3_);
  const int inner = this->kH * this->kW;
  for (int i = 0; i < this->label_.count(); ++i) {
    if (static_cast<int>(this->label_.cpu_data()[i]) != ignore) continue;
    const int n = i / inner, j = i % inner;
    for (int k = 0; k < this->kK; ++k)
      EXPECT_EQ(Dtype(0),
                this->score_.cpu_diff()[(n * this->kK + k) * inner + j]);
  }
}

TYPED_TEST(InfogainLossLayerTest, OtherAxis) {
  typedef TypeParam Dtype;
  // Scores N x M x K with the classes on axis 2 (also as -1).
  Blob<Dtype> score(vector<int>{3, 4, 5});
  Blob<Dtype> label(vector<int>{3, 4});
  caffe_rng_gaussian<Dtype>(score.count(), Dtype(0), Dtype(1),
                            score.mutable_cpu_data());
  for (int i = 0; i < 12; ++i) label.mutable_cpu_data()[i] = Dtype(i % 5);
  double want = 0;
  for (int r = 0; r < 12; ++r) {
    const Dtype* s = score.cpu_data() + r * 5;
    double z = 0;
    for (int k = 0; k < 5; ++k) z += std::exp(double(s[k]));
    const int l = static_cast<int>(label.cpu_data()[r]);
    for (int k = 0; k < 5; ++k)
      want -= this->infogain_.cpu_data()[l * 5 + k] * (s[k] - std::log(z));
  }
  want /= 12;
  vector<Blob<Dtype>*> bottom{&score, &label, &this->infogain_};
  for (int axis : {2, -1}) {
    LayerParameter p = this->Param();
    p.mutable_infogain_loss_param()->set_axis(axis);
    InfogainLossLayer<Dtype> layer(p);
    layer.SetUp(bottom, this->top_vec_);
    layer.Forward(bottom, this->top_vec_);
    EXPECT_NEAR(want, this->loss_.cpu_data()[0], 1e-5 * std::max(1.0, want));
    GradientChecker<Dtype> checker(1e-2, 1e-2);
    checker.CheckGradientExhaustive(&layer, bottom, this->top_vec_, 0);
  }
}

TYPED_TEST(InfogainLossLayerTest, ProbabilityTop) {
  typedef TypeParam Dtype;
  Blob<Dtype> prob;
  vector<Blob<Dtype>*> tops{&this->loss_, &prob};
  LayerParameter p = this->Param();
  p.add_top("loss");
  p.add_top("prob");
  InfogainLossLayer<Dtype> layer(p);
  EXPECT_EQ(kReadsTopData, layer.Memory().backward_reads);
  layer.SetUp(this->bottom3_, tops);
  layer.Forward(this->bottom3_, tops);
  ASSERT_EQ(this->score_.shape(), prob.shape());
  const int inner = this->kH * this->kW;
  for (int n = 0; n < this->kN; ++n)
    for (int j = 0; j < inner; ++j) {
      double sum = 0;
      for (int k = 0; k < this->kK; ++k)
        sum += prob.cpu_data()[(n * this->kK + k) * inner + j];
      EXPECT_NEAR(1, sum, 1e-5);
    }
  // Only the loss carries weight.
  EXPECT_EQ(Dtype(1), layer.loss(0));
  EXPECT_EQ(Dtype(0), layer.loss(1));
  contract_test::CheckBackwardReads<Dtype>(
      &layer, this->bottom3_, tops, vector<bool>{true, false, false});
}

TYPED_TEST(InfogainLossLayerTest, Gradient) {
  typedef TypeParam Dtype;
  {
    InfogainLossLayer<Dtype> layer(this->Param());
    GradientChecker<Dtype> checker(1e-2, 1e-2);
    checker.CheckGradientExhaustive(&layer, this->bottom3_, this->top_vec_,
                                    0);
  }
  {
    LayerParameter p = this->Param();
    p.mutable_loss_param()->set_ignore_label(1);
    InfogainLossLayer<Dtype> layer(p);
    GradientChecker<Dtype> checker(1e-2, 1e-2);
    checker.CheckGradientExhaustive(&layer, this->bottom3_, this->top_vec_,
                                    0);
  }
}

TYPED_TEST(InfogainLossLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  InfogainLossLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_TRUE(layer.AllowForceBackward(0));
  EXPECT_FALSE(layer.AllowForceBackward(1));
  EXPECT_FALSE(layer.AllowForceBackward(2));
  layer.SetUp(this->bottom3_, this->top_vec_);
  EXPECT_GT(layer.InternalBytes(),
            this->score_.count() * sizeof(Dtype));  // probabilities + more
  contract_test::CheckBackwardReads<Dtype>(
      &layer, this->bottom3_, this->top_vec_, vector<bool>{true, false, false});
}

TYPED_TEST(InfogainLossLayerTest, Errors) {
  typedef TypeParam Dtype;
  {  // Missing file: the message names it.
    LayerParameter p = this->Param();
    const string path = this->TempPath("does_not_exist");
    p.mutable_infogain_loss_param()->set_source(path);
    InfogainLossLayer<Dtype> layer(p);
    try {
      layer.SetUp(this->bottom2_, this->top_vec_);
      ADD_FAILURE() << "a missing source file should throw";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find(path), string::npos) << e.what();
      EXPECT_NE(string(e.what()).find("infogain"), string::npos) << e.what();
    }
  }
  {  // No matrix at all.
    InfogainLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(this->bottom2_, this->top_vec_), Error);
  }
  {  // Matrix of the wrong size.
    Blob<Dtype> h(vector<int>{4, 4});
    vector<Blob<Dtype>*> b{&this->score_, &this->label_, &h};
    InfogainLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
  }
  {  // Label count, label range, backward to labels / H.
    Blob<Dtype> label(vector<int>{4, 2, 2, 3});
    vector<Blob<Dtype>*> b{&this->score_, &label, &this->infogain_};
    InfogainLossLayer<Dtype> layer(this->Param());
    EXPECT_THROW(layer.SetUp(b, this->top_vec_), Error);
    InfogainLossLayer<Dtype> layer2(this->Param());
    layer2.SetUp(this->bottom3_, this->top_vec_);
    this->label_.mutable_cpu_data()[5] = 5;
    EXPECT_THROW(layer2.Forward(this->bottom3_, this->top_vec_), Error);
    this->label_.mutable_cpu_data()[5] = 0;
    layer2.Forward(this->bottom3_, this->top_vec_);
    EXPECT_THROW(layer2.Backward(this->top_vec_,
                                 vector<bool>{true, true, false},
                                 this->bottom3_),
                 Error);
    EXPECT_THROW(layer2.Backward(this->top_vec_,
                                 vector<bool>{true, false, true},
                                 this->bottom3_),
                 Error);
  }
}

}  // namespace caffe
