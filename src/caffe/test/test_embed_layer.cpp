// Tests for EmbedLayer: lookup values against the table, parameter
// gradients by finite differences (with repeated indices, so rows must
// accumulate), the BackwardReads declaration, index and parameter errors,
// and that force_backward in a Net leaves the index input alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/embed_layer.hpp"
#include "caffe/net.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;

template <typename Dtype>
class EmbedLayerTest : public ::testing::Test {
 public:
  static const int kInputDim = 5;
  static const int kNumOutput = 4;
  EmbedLayerTest() : bottom_(vector<int>{2, 3}) {
    // Index 1 appears three times, index 4 twice, index 0 once.
    const int indices[] = {1, 4, 1, 0, 4, 1};
    for (int i = 0; i < bottom_.count(); ++i)
      bottom_.mutable_cpu_data()[i] = indices[i];
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }
  LayerParameter Param(bool bias_term = true) const {
    LayerParameter p;
    p.set_name("embed");
    p.set_type("Embed");
    EmbedParameter* ep = p.mutable_embed_param();
    ep->set_num_output(kNumOutput);
    ep->set_input_dim(kInputDim);
    ep->set_bias_term(bias_term);
    ep->mutable_weight_filler()->set_type("uniform");
    ep->mutable_weight_filler()->set_min(-1);
    ep->mutable_weight_filler()->set_max(1);
    ep->mutable_bias_filler()->set_type("uniform");
    ep->mutable_bias_filler()->set_min(-1);
    ep->mutable_bias_filler()->set_max(1);
    return p;
  }
  Blob<Dtype> bottom_;
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> bottom_vec_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(EmbedLayerTest, TestDtypes);

TYPED_TEST(EmbedLayerTest, SetUp) {
  typedef TypeParam Dtype;
  EmbedLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ((vector<int>{2, 3, 4}), this->top_.shape());
  ASSERT_EQ(2u, layer.blobs().size());
  EXPECT_EQ((vector<int>{5, 4}), layer.blobs()[0]->shape());
  EXPECT_EQ((vector<int>{4}), layer.blobs()[1]->shape());
  EmbedLayer<Dtype> no_bias(this->Param(false));
  no_bias.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(1u, no_bias.blobs().size());
}

TYPED_TEST(EmbedLayerTest, Forward) {
  typedef TypeParam Dtype;
  for (int bias = 0; bias < 2; ++bias) {
    EmbedLayer<Dtype> layer(this->Param(bias));
    layer.SetUp(this->bottom_vec_, this->top_vec_);
    layer.Forward(this->bottom_vec_, this->top_vec_);
    const Dtype* w = layer.blobs()[0]->cpu_data();
    for (int m = 0; m < this->bottom_.count(); ++m) {
      const int index = static_cast<int>(this->bottom_.cpu_data()[m]);
      for (int j = 0; j < 4; ++j) {
        Dtype expected = w[index * 4 + j];
        if (bias) expected += layer.blobs()[1]->cpu_data()[j];
        EXPECT_EQ(expected, this->top_.cpu_data()[m * 4 + j])
            << "m " << m << " j " << j;
      }
    }
  }
}

TYPED_TEST(EmbedLayerTest, Gradient) {
  typedef TypeParam Dtype;
  for (int bias = 0; bias < 2; ++bias) {
    EmbedLayer<Dtype> layer(this->Param(bias));
    GradientChecker<Dtype> checker(1e-2, 1e-3);
    // -2: parameters only; the indices have no gradient.
    checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_,
                                    -2);
  }
}

TYPED_TEST(EmbedLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  EmbedLayer<Dtype> layer(this->Param());
  EXPECT_EQ(kReadsBottomData, layer.Memory().backward_reads);
  EXPECT_FALSE(layer.Memory().in_place);
  EXPECT_FALSE(layer.AllowForceBackward(0));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&layer, this->bottom_vec_, this->top_vec_,
                            vector<bool>(1, false));
}

TYPED_TEST(EmbedLayerTest, NoBackwardToIndices) {
  typedef TypeParam Dtype;
  EmbedLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  EXPECT_THROW(layer.Backward(this->top_vec_, vector<bool>(1, true),
                              this->bottom_vec_),
               Error);
}

TYPED_TEST(EmbedLayerTest, BadIndexThrows) {
  typedef TypeParam Dtype;
  EmbedLayer<Dtype> layer(this->Param());
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  const Dtype bad[] = {5, -1, Dtype(1.5), Dtype(1e30)};
  for (Dtype value : bad) {
    this->bottom_.mutable_cpu_data()[2] = value;
    try {
      layer.Forward(this->bottom_vec_, this->top_vec_);
      ADD_FAILURE() << "index " << value << " accepted";
    } catch (const Error& e) {
      const string what = e.what();
      EXPECT_NE(string::npos, what.find("embed")) << what;
      EXPECT_NE(string::npos, what.find("index")) << what;
      EXPECT_NE(string::npos, what.find("position 2")) << what;
    }
  }
  this->bottom_.mutable_cpu_data()[2] = 5;
  try {
    layer.Forward(this->bottom_vec_, this->top_vec_);
  } catch (const Error& e) {
    EXPECT_NE(string::npos, string(e.what()).find("index 5")) << e.what();
  }
}

TYPED_TEST(EmbedLayerTest, BadParamsThrow) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param();
  p.mutable_embed_param()->set_num_output(0);
  EXPECT_THROW(EmbedLayer<Dtype>(p).SetUp(this->bottom_vec_, this->top_vec_),
               Error);
  p = this->Param();
  p.mutable_embed_param()->set_input_dim(0);
  EXPECT_THROW(EmbedLayer<Dtype>(p).SetUp(this->bottom_vec_, this->top_vec_),
               Error);
  // Weights of the wrong shape given with the layer (a bad model file).
  p = this->Param();
  BlobProto* w = p.add_blobs();
  w->mutable_shape()->add_dim(4);
  w->mutable_shape()->add_dim(5);
  for (int i = 0; i < 20; ++i) w->add_data(0);
  BlobProto* b = p.add_blobs();
  b->mutable_shape()->add_dim(4);
  for (int i = 0; i < 4; ++i) b->add_data(0);
  EXPECT_THROW(EmbedLayer<Dtype>(p).SetUp(this->bottom_vec_, this->top_vec_),
               Error);
}

TYPED_TEST(EmbedLayerTest, ForceBackwardInNetSkipsIndices) {
  typedef TypeParam Dtype;
  NetParameter p;
  ReadProtoFromTextString(
      "force_backward: true "
      "layer { name: 'in' type: 'Input' top: 'idx' "
      "        input_param { shape { dim: 3 } } } "
      "layer { name: 'embed' type: 'Embed' bottom: 'idx' top: 'e' "
      "        embed_param { num_output: 2 input_dim: 4 "
      "                      weight_filler { type: 'gaussian' } } }",
      "embed net", &p);
  Net<Dtype> net(p);
  EXPECT_FALSE(net.bottom_need_backward()[1][0]);
  Blob<Dtype>* idx = net.input_blobs()[0];
  idx->mutable_cpu_data()[0] = 3;
  idx->mutable_cpu_data()[1] = 0;
  idx->mutable_cpu_data()[2] = 3;
  net.Forward();
  EXPECT_NO_THROW(net.Backward());
}

}  // namespace caffe
