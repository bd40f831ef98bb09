// Tests for TileLayer: shapes and values along several axes against loops,
// gradient, the BackwardReads declaration and parameter errors.
#include <gtest/gtest.h>

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/tile_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

template <typename Dtype>
class TileLayerTest : public ::testing::Test {
 protected:
  TileLayerTest() : bottom_(vector<int>{2, 3, 4, 5}) {
    Caffe::set_random_seed(1701);
    caffe_rng_gaussian<Dtype>(bottom_.count(), Dtype(0), Dtype(1),
                              bottom_.mutable_cpu_data());
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  LayerParameter Param(int axis, int tiles) {
    LayerParameter p;
    p.set_name("tile");
    p.set_type("Tile");
    p.mutable_tile_param()->set_axis(axis);
    p.mutable_tile_param()->set_tiles(tiles);
    return p;
  }
  // top[n, t * C + c, h, w] = bottom[n, c, h, w], generalised to any axis.
  void CheckForward(int axis, int tiles) {
    TileLayer<Dtype> layer(Param(axis, tiles));
    layer.SetUp(bottom_vec_, top_vec_);
    layer.Forward(bottom_vec_, top_vec_);
    const int a = axis < 0 ? axis + 4 : axis;
    vector<int> want = bottom_.shape();
    want[a] *= tiles;
    ASSERT_EQ(want, top_.shape());
    for (int i = 0; i < top_.count(); ++i) {
      vector<int> idx(4);
      int r = i;
      for (int d = 3; d >= 0; --d) {
        idx[d] = r % want[d];
        r /= want[d];
      }
      idx[a] %= bottom_.shape(a);
      EXPECT_EQ(bottom_.data_at(idx), top_.cpu_data()[i]) << "index " << i;
    }
  }
  Blob<Dtype> bottom_, top_;
  vector<Blob<Dtype>*> bottom_vec_, top_vec_;
};

TYPED_TEST_SUITE(TileLayerTest, TestDtypes);

TYPED_TEST(TileLayerTest, ForwardAxes) {
  this->CheckForward(1, 3);
  this->CheckForward(0, 2);
  this->CheckForward(3, 4);
  this->CheckForward(-2, 2);
  this->CheckForward(1, 1);
}

TYPED_TEST(TileLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (int axis : {0, 1, 3}) {
    TileLayer<Dtype> layer(this->Param(axis, 3));
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
  }
}

TYPED_TEST(TileLayerTest, BackwardSumsTiles) {
  typedef TypeParam Dtype;
  TileLayer<Dtype> layer(this->Param(2, 2));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  caffe_set(this->top_.count(), Dtype(1.5), this->top_.mutable_cpu_diff());
  layer.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
  for (int i = 0; i < this->bottom_.count(); ++i)
    EXPECT_EQ(Dtype(3), this->bottom_.cpu_diff()[i]);
}

TYPED_TEST(TileLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  TileLayer<Dtype> layer(this->Param(1, 3));
  EXPECT_EQ(kReadsNothing, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  contract_test::CheckBackwardReads<Dtype>(&layer, this->bottom_vec_,
                                           this->top_vec_);
}

TYPED_TEST(TileLayerTest, BadParams) {
  typedef TypeParam Dtype;
  {
    TileLayer<Dtype> layer(this->Param(1, 0));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    TileLayer<Dtype> layer(this->Param(1, -2));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    LayerParameter p = this->Param(1, 2);
    p.mutable_tile_param()->clear_tiles();
    TileLayer<Dtype> layer(p);
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  for (int axis : {4, -5}) {
    TileLayer<Dtype> layer(this->Param(axis, 2));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->top_vec_), Error);
  }
  {
    TileLayer<Dtype> layer(this->Param(1, 2));
    EXPECT_THROW(layer.SetUp(this->bottom_vec_, this->bottom_vec_), Error);
  }
}

}  // namespace caffe
