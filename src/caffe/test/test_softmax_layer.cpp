#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/softmax_layer.hpp"
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
  EXPECT_TRUE(layer.AllowsInPlace());
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
  EXPECT_EQ(layer.BackwardReads(), kReadsTopData);
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
