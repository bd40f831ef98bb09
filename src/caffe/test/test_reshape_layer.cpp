#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/reshape_layer.hpp"
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
class ReshapeLayerTest : public ::testing::Test {
 protected:
  ReshapeLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{2, 3, 6, 5})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    FillGaussian(bottom_.get());
    bottom_vec_.push_back(bottom_.get());
    top_vec_.push_back(top_.get());
  }
  LayerParameter Param(const vector<int>& dims, int axis = 0,
                       int num_axes = -1) {
    LayerParameter param;
    param.set_name("reshape");
    ReshapeParameter* p = param.mutable_reshape_param();
    for (int d : dims) p->mutable_shape()->add_dim(d);
    p->set_axis(axis);
    p->set_num_axes(num_axes);
    return param;
  }
  vector<int> TopShape(const LayerParameter& param) {
    ReshapeLayer<Dtype> layer(param);
    layer.SetUp(bottom_vec_, top_vec_);
    return top_->shape();
  }
  std::unique_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ReshapeLayerTest, TestDtypes);

TYPED_TEST(ReshapeLayerTest, Shapes) {
  typedef TypeParam Dtype;
  EXPECT_EQ(this->TopShape(this->Param({6, 2, 3, 5})),
            (vector<int>{6, 2, 3, 5}));
  EXPECT_EQ(this->TopShape(this->Param({0, -1})), (vector<int>{2, 90}));
  EXPECT_EQ(this->TopShape(this->Param({0, 0, -1})), (vector<int>{2, 3, 30}));
  EXPECT_EQ(this->TopShape(this->Param({-1, 0, 0, 0})),
            (vector<int>{2, 3, 6, 5}));
  EXPECT_EQ(this->TopShape(this->Param({0, 0, -1, 10})),
            (vector<int>{2, 3, 3, 10}));
  EXPECT_EQ(this->TopShape(this->Param({180})), (vector<int>{180}));
  // Replace only axes [1, 3) (3 x 6) with 2 x 9.
  EXPECT_EQ(this->TopShape(this->Param({2, 9}, 1, 2)),
            (vector<int>{2, 2, 9, 5}));
  // Replace the last two axes: axis -3 starts before them.
  EXPECT_EQ(this->TopShape(this->Param({-1}, -3, 2)),
            (vector<int>{2, 3, 30}));
  // Insert a singleton axis at the end (axis -1, num_axes 0).
  EXPECT_EQ(this->TopShape(this->Param({1}, -1, 0)),
            (vector<int>{2, 3, 6, 5, 1}));
  // Insert one at the front.
  EXPECT_EQ(this->TopShape(this->Param({1}, 0, 0)),
            (vector<int>{1, 2, 3, 6, 5}));
  // Copy axes relative to the replaced range.
  EXPECT_EQ(this->TopShape(this->Param({0, -1}, 1)), (vector<int>{2, 3, 30}));
  ReshapeLayer<Dtype> layer(this->Param({-1}));
  EXPECT_STREQ(layer.type(), "Reshape");
}

TYPED_TEST(ReshapeLayerTest, TopSharesBottomMemory) {
  typedef TypeParam Dtype;
  ReshapeLayer<Dtype> layer(this->Param({0, -1, 2}));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{2, 45, 2}));
  EXPECT_EQ(this->top_->cpu_data(), this->bottom_->cpu_data());
  EXPECT_EQ(this->top_->cpu_diff(), this->bottom_->cpu_diff());
  for (int i = 0; i < this->bottom_->count(); ++i)
    EXPECT_EQ(this->top_->cpu_data()[i], this->bottom_->cpu_data()[i]);
  // The inferred axis follows a new batch size.
  this->bottom_->Reshape(vector<int>{4, 3, 6, 5});
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{4, 45, 2}));
  EXPECT_EQ(this->top_->cpu_data(), this->bottom_->cpu_data());
  EXPECT_EQ(this->top_->cpu_diff(), this->bottom_->cpu_diff());
}

TYPED_TEST(ReshapeLayerTest, Gradient) {
  typedef TypeParam Dtype;
  this->bottom_->Reshape(vector<int>{2, 3, 2, 2});
  FillGaussian(this->bottom_.get());
  ReshapeLayer<Dtype> layer(this->Param({0, -1}));
  GradientChecker<Dtype> checker(1e-2, 1e-2);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(ReshapeLayerTest, BackwardReadsDeclaration) {
  typedef TypeParam Dtype;
  ReshapeLayer<Dtype> layer(this->Param({0, -1}));
  EXPECT_EQ(layer.BackwardReads(), kReadsNothing);
  EXPECT_TRUE(layer.TopAliasesBottom());
  EXPECT_FALSE(layer.AllowsInPlace());
  CheckBackwardReads(&layer, this->bottom_vec_, this->top_vec_,
                     vector<bool>{true});
}

TYPED_TEST(ReshapeLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  const vector<LayerParameter> bad = {
      this->Param({-1, -1}),         // two inferred axes
      this->Param({7, -1}),          // 180 not divisible by 7
      this->Param({2, 3, 6, 6}),     // count changes
      this->Param({0, 0, 0, 0, 0}),  // copies an axis that does not exist
      this->Param({-2, 90}),         // negative dimension
      this->Param({-1}, 5),          // axis out of range
      this->Param({-1}, 2, 3),       // axis + num_axes out of range
      this->Param({-1}, 0, -2),      // bad num_axes
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    ReshapeLayer<Dtype> layer(bad[i]);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error) << i;
  }
  try {
    ReshapeLayer<Dtype> layer(this->Param({-1, -1}));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
  } catch (const Error& e) {
    EXPECT_NE(string(e.what()).find("reshape"), string::npos) << e.what();
  }
  ReshapeLayer<Dtype> layer(this->Param({-1}));
  EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->bottom_vec_), Error);
}

}  // namespace caffe
