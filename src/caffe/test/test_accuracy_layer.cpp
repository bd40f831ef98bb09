#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/accuracy_layer.hpp"
#include "caffe/test/test_fill_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class AccuracyLayerTest : public ::testing::Test {
 protected:
  AccuracyLayerTest()
      : scores_(new Blob<Dtype>(vector<int>{20, 6})),
        labels_(new Blob<Dtype>(vector<int>{20})),
        acc_(new Blob<Dtype>()), per_class_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(scores_.get());
    for (int i = 0; i < 20; ++i) labels_->mutable_cpu_data()[i] = (i * 7) % 6;
    bottom_vec_ = {scores_.get(), labels_.get()};
    top_vec_ = {acc_.get()};
    top2_vec_ = {acc_.get(), per_class_.get()};
  }
  LayerParameter Param(int top_k = 1) {
    LayerParameter param;
    param.set_name("acc");
    param.mutable_accuracy_param()->set_top_k(top_k);
    return param;
  }
  // Whether `label` is among the k best of `scores` (ties count against).
  static bool InTopK(const vector<Dtype>& scores, int label, int k) {
    int rank = 0;
    for (size_t c = 0; c < scores.size(); ++c)
      if (static_cast<int>(c) != label && scores[c] >= scores[label]) ++rank;
    return rank < k;
  }
  std::unique_ptr<Blob<Dtype> > scores_, labels_, acc_, per_class_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_, top2_vec_;
};

TYPED_TEST_SUITE(AccuracyLayerTest, TestDtypes);

TYPED_TEST(AccuracyLayerTest, SetUp) {
  typedef TypeParam Dtype;
  AccuracyLayer<Dtype> layer(this->Param());
  EXPECT_STREQ(layer.type(), "Accuracy");
  layer.SetUp(this->bottom_vec_, this->top2_vec_);
  EXPECT_EQ(this->acc_->num_axes(), 0);
  EXPECT_EQ(this->per_class_->shape(), (vector<int>{6}));
  // Not a loss.
  EXPECT_EQ(layer.loss(0), Dtype(0));
}

TYPED_TEST(AccuracyLayerTest, ForwardTopK) {
  typedef TypeParam Dtype;
  for (int k = 1; k <= 6; k += 2) {
    AccuracyLayer<Dtype> layer(this->Param(k));
    layer.SetUp(this->bottom_vec_, this->top2_vec_);
    layer.Forward(this->bottom_vec_, this->top2_vec_);
    int hits = 0;
    vector<int> total(6, 0), class_hits(6, 0);
    for (int n = 0; n < 20; ++n) {
      vector<Dtype> s(this->scores_->cpu_data() + n * 6,
                      this->scores_->cpu_data() + (n + 1) * 6);
      const int label = static_cast<int>(this->labels_->cpu_data()[n]);
      ++total[label];
      if (this->InTopK(s, label, k)) {
        ++hits;
        ++class_hits[label];
      }
    }
    EXPECT_NEAR(hits / 20.0, this->acc_->cpu_data()[0], 1e-6) << k;
    for (int c = 0; c < 6; ++c)
      EXPECT_NEAR(total[c] ? double(class_hits[c]) / total[c] : 0.0,
                  this->per_class_->cpu_data()[c], 1e-6);
  }
  // With every class allowed every prediction is right.
  AccuracyLayer<Dtype> all(this->Param(6));
  all.SetUp(this->bottom_vec_, this->top_vec_);
  all.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(Dtype(1), this->acc_->cpu_data()[0]);
}

TYPED_TEST(AccuracyLayerTest, ForwardSpatialWithIgnore) {
  typedef TypeParam Dtype;
  // Classes on axis 1 of N x C x H x W, labels N x H x W.
  this->scores_->Reshape(vector<int>{3, 4, 2, 5});
  FillGaussian(this->scores_.get());
  this->labels_->Reshape(vector<int>{3, 2, 5});
  for (int i = 0; i < 30; ++i) this->labels_->mutable_cpu_data()[i] = i % 4;
  LayerParameter param = this->Param();
  param.mutable_accuracy_param()->set_ignore_label(2);
  AccuracyLayer<Dtype> layer(param);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  int hits = 0, count = 0;
  for (int n = 0; n < 3; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 5; ++w) {
        const int label =
            static_cast<int>(this->labels_->cpu_data()[(n * 2 + h) * 5 + w]);
        if (label == 2) continue;
        vector<Dtype> s;
        for (int c = 0; c < 4; ++c)
          s.push_back(this->scores_->data_at(n, c, h, w));
        hits += this->InTopK(s, label, 1);
        ++count;
      }
  EXPECT_LT(count, 30);
  EXPECT_NEAR(double(hits) / count, this->acc_->cpu_data()[0], 1e-6);
}

TYPED_TEST(AccuracyLayerTest, TiesCountAgainst) {
  typedef TypeParam Dtype;
  caffe_set(this->scores_->count(), Dtype(1),
            this->scores_->mutable_cpu_data());
  AccuracyLayer<Dtype> layer(this->Param(1));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(Dtype(0), this->acc_->cpu_data()[0]);
}

TYPED_TEST(AccuracyLayerTest, NoBackward) {
  typedef TypeParam Dtype;
  AccuracyLayer<Dtype> layer(this->Param());
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  // Nothing asked for: nothing happens, whatever the inputs hold.
  for (auto* blob : this->bottom_vec_) contract_test::PoisonData(blob);
  for (auto* blob : this->top_vec_) contract_test::PoisonData(blob);
  EXPECT_NO_THROW(layer.Backward(this->top_vec_, vector<bool>{false, false},
                                 this->bottom_vec_));
  EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>{true, false},
                              this->bottom_vec_),
               Error);
}

TYPED_TEST(AccuracyLayerTest, BadInputsThrow) {
  typedef TypeParam Dtype;
  {
    Blob<Dtype> labels(vector<int>{19});
    vector<Blob<Dtype>*> bottom{this->scores_.get(), &labels};
    AccuracyLayer<Dtype> layer(this->Param());
    try {
      layer.SetUp(bottom, this->top_vec_);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(string(e.what()).find("acc"), string::npos) << e.what();
    }
  }
  {
    AccuracyLayer<Dtype> layer(this->Param(7));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    AccuracyLayer<Dtype> layer(this->Param(0));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    this->labels_->mutable_cpu_data()[3] = 6;
    AccuracyLayer<Dtype> layer(this->Param());
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_THROW(layer.Forward(this->bottom_vec_, this->top_vec_), Error);
  }
}

}  // namespace caffe
