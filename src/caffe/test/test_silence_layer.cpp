#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/silence_layer.hpp"
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
class SilenceLayerTest : public ::testing::Test {
 protected:
  SilenceLayerTest()
      : a_(new Blob<Dtype>(vector<int>{2, 3})),
        b_(new Blob<Dtype>(vector<int>{4})) {
    Caffe::set_random_seed(1701);
    FillGaussian(a_.get());
    FillGaussian(b_.get());
    bottom_vec_ = {a_.get(), b_.get()};
    param_.set_name("silence");
  }
  std::unique_ptr<Blob<Dtype> > a_, b_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
  LayerParameter param_;
};

TYPED_TEST_SUITE(SilenceLayerTest, TestDtypes);

TYPED_TEST(SilenceLayerTest, ForwardLeavesDataAndBackwardZeroes) {
  typedef TypeParam Dtype;
  SilenceLayer<Dtype> layer(this->param_);
  EXPECT_STREQ(layer.type(), "Silence");
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  vector<Dtype> before(this->a_->cpu_data(),
                       this->a_->cpu_data() + this->a_->count());
  EXPECT_EQ(layer.Forward(this->bottom_vec_, this->top_vec_), Dtype(0));
  for (int i = 0; i < this->a_->count(); ++i)
    EXPECT_EQ(before[i], this->a_->cpu_data()[i]);
  caffe_set(this->a_->count(), Dtype(5), this->a_->mutable_cpu_diff());
  caffe_set(this->b_->count(), Dtype(5), this->b_->mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>{true, false}, this->bottom_vec_);
  for (int i = 0; i < this->a_->count(); ++i)
    EXPECT_EQ(Dtype(0), this->a_->cpu_diff()[i]);
  for (int i = 0; i < this->b_->count(); ++i)
    EXPECT_EQ(Dtype(5), this->b_->cpu_diff()[i]);
}

TYPED_TEST(SilenceLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  SilenceLayer<Dtype> layer(this->param_);
  EXPECT_EQ(layer.BackwardReads(), kReadsNothing);
  EXPECT_FALSE(layer.AllowsInPlace());
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true, true});
}

TYPED_TEST(SilenceLayerTest, BadBlobCountsThrow) {
  typedef TypeParam Dtype;
  {
    SilenceLayer<Dtype> layer(this->param_);
    vector<Blob<Dtype>*> top{this->b_.get()};
    vector<Blob<Dtype>*> bottom{this->a_.get()};
    EXPECT_THROW(layer.SetUp(bottom, top), Error);
  }
  {
    SilenceLayer<Dtype> layer(this->param_);
    vector<Blob<Dtype>*> none;
    EXPECT_THROW(layer.SetUp(none, none), Error);
  }
}

}  // namespace caffe
