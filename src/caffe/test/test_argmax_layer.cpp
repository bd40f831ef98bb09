#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layers/argmax_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"

namespace caffe {

template <typename Dtype>
class ArgMaxLayerTest : public ::testing::Test {
 protected:
  ArgMaxLayerTest()
      : bottom_(new Blob<Dtype>(vector<int>{3, 4, 2, 5})),
        top_(new Blob<Dtype>()) {
    Caffe::set_random_seed(1701);
    // Distinct values, so the ranking is unambiguous.
    Dtype* d = bottom_->mutable_cpu_data();
    for (int i = 0; i < bottom_->count(); ++i)
      d[i] = Dtype(((i * 37) % 120) - 60) / 10;
    bottom_vec_.push_back(bottom_.get());
    top_vec_.push_back(top_.get());
  }
  LayerParameter Param(int top_k, bool out_max_val, bool has_axis = false,
                       int axis = 0) {
    LayerParameter param;
    param.set_name("argmax");
    ArgMaxParameter* p = param.mutable_argmax_param();
    p->set_top_k(top_k);
    p->set_out_max_val(out_max_val);
    if (has_axis) p->set_axis(axis);
    return param;
  }
  // The indices of the k largest of `values`, largest first (ties: larger
  // index first), by selection rather than sorting.
  static vector<int> TopK(const vector<Dtype>& values, int k) {
    vector<int> result;
    vector<bool> used(values.size(), false);
    for (int r = 0; r < k; ++r) {
      int best = -1;
      for (int j = 0; j < static_cast<int>(values.size()); ++j)
        if (!used[j] && (best < 0 || values[j] >= values[best])) best = j;
      used[best] = true;
      result.push_back(best);
    }
    return result;
  }
  std::unique_ptr<Blob<Dtype> > bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(ArgMaxLayerTest, TestDtypes);

TYPED_TEST(ArgMaxLayerTest, Shapes) {
  typedef TypeParam Dtype;
  struct Case { int k; bool val, has_axis; int axis; vector<int> shape; };
  const vector<Case> cases = {
      {1, false, false, 0, {3, 1, 1, 1}}, {4, false, false, 0, {3, 1, 4, 1}},
      {4, true, false, 0, {3, 2, 4, 1}},  {2, false, true, 1, {3, 2, 2, 5}},
      {3, true, true, -1, {3, 4, 2, 3}},  {1, false, true, 0, {1, 4, 2, 5}},
  };
  for (const Case& c : cases) {
    ArgMaxLayer<Dtype> layer(this->Param(c.k, c.val, c.has_axis, c.axis));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    EXPECT_EQ(this->top_->shape(), c.shape) << c.k << " " << c.axis;
  }
  // Fewer than 3 axes are padded to 3.
  Blob<Dtype> flat(vector<int>{3, 7});
  vector<Blob<Dtype>*> bottom{&flat};
  ArgMaxLayer<Dtype> layer(this->Param(2, false));
  layer.SetUp(bottom, this->top_vec_);
  EXPECT_EQ(this->top_->shape(), (vector<int>{3, 1, 2}));
  EXPECT_STREQ(layer.type(), "ArgMax");
}

TYPED_TEST(ArgMaxLayerTest, ForwardPerSample) {
  typedef TypeParam Dtype;
  for (int out_max_val = 0; out_max_val < 2; ++out_max_val) {
    const int k = 3, dim = 40;
    ArgMaxLayer<Dtype> layer(this->Param(k, out_max_val));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    const Dtype* x = this->bottom_->cpu_data();
    const Dtype* y = this->top_->cpu_data();
    for (int n = 0; n < 3; ++n) {
      vector<Dtype> values(x + n * dim, x + (n + 1) * dim);
      vector<int> expected = this->TopK(values, k);
      const int stride = out_max_val ? 2 * k : k;
      for (int j = 0; j < k; ++j) {
        EXPECT_EQ(Dtype(expected[j]), y[n * stride + j]);
        if (out_max_val) {
          EXPECT_EQ(values[expected[j]], y[n * stride + k + j]);
        }
      }
    }
  }
}

TYPED_TEST(ArgMaxLayerTest, ForwardAlongAxis) {
  typedef TypeParam Dtype;
  for (int out_max_val = 0; out_max_val < 2; ++out_max_val) {
    const int k = 2;
    ArgMaxLayer<Dtype> layer(this->Param(k, out_max_val, true, 1));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    for (int n = 0; n < 3; ++n)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 5; ++w) {
          vector<Dtype> values;
          for (int c = 0; c < 4; ++c)
            values.push_back(this->bottom_->data_at(n, c, h, w));
          vector<int> expected = this->TopK(values, k);
          for (int j = 0; j < k; ++j)
            EXPECT_EQ(out_max_val ? values[expected[j]] : Dtype(expected[j]),
                      this->top_->data_at(n, j, h, w));
        }
  }
}

TYPED_TEST(ArgMaxLayerTest, TiesGoToLargerIndex) {
  typedef TypeParam Dtype;
  Blob<Dtype> flat(vector<int>{1, 4});
  Dtype* d = flat.mutable_cpu_data();
  d[0] = 2; d[1] = 1; d[2] = 2; d[3] = 0;
  vector<Blob<Dtype>*> bottom{&flat};
  ArgMaxLayer<Dtype> layer(this->Param(2, false));
  layer.SetUp(bottom, this->top_vec_);
  layer.Forward(bottom, this->top_vec_);
  EXPECT_EQ(Dtype(2), this->top_->cpu_data()[0]);
  EXPECT_EQ(Dtype(0), this->top_->cpu_data()[1]);
}

TYPED_TEST(ArgMaxLayerTest, NoBackward) {
  typedef TypeParam Dtype;
  ArgMaxLayer<Dtype> layer(this->Param(1, false));
  EXPECT_EQ(layer.Memory().backward_reads, kReadsNothing);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_THROW(
      layer.Backward(this->top_vec_, vector<bool>{true}, this->bottom_vec_),
      Error);
}

TYPED_TEST(ArgMaxLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  const vector<LayerParameter> bad = {
      this->Param(0, false),           // top_k must be >= 1
      this->Param(41, false),          // more than one sample holds
      this->Param(5, false, true, 1),  // more than the axis holds
      this->Param(1, false, true, 4),  // axis out of range
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    ArgMaxLayer<Dtype> layer(bad[i]);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error) << i;
  }
}

}  // namespace caffe
