// Tests of the cuDNN engines for pooling, softmax, ReLU, sigmoid, tanh and
// LRN that need no GPU:
// cuDNN's descriptors give its pooling output size, which the layer
// compares with its own before choosing cuDNN (util/cudnn_pool.hpp), and
// the softmax tensor (util/cudnn_softmax.hpp), the activations' engine is
// kept per layer and rebuilt when the count changes
// (util/cudnn_activation.hpp); engine CUDNN declares the
// reads cuDNN's backward makes; in CPU mode such layers compute what
// engine DEFAULT computes.  The engines' passes are compared with the
// CPU's in test_gpu (PoolingAveCudnn, SoftmaxCudnn, ...).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/lrn_layer.hpp"
#include "caffe/layers/pooling_layer.hpp"
#include "caffe/layers/relu_layer.hpp"
#include "caffe/layers/sigmoid_layer.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/layers/tanh_layer.hpp"
#include "caffe/util/cudnn_activation.hpp"
#include "caffe/util/cudnn_lrn.hpp"
#include "caffe/util/cudnn_pool.hpp"
#include "caffe/util/cudnn_softmax.hpp"

namespace caffe {
namespace {

LayerParameter ParseLayer(const std::string& text) {
  LayerParameter p;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(text, &p));
  return p;
}

#ifdef USE_CUDA
// The layer's output size for the shape, from a layer in CPU mode.
template <typename Dtype>
void LayerOutput(const std::string& text, const std::vector<int>& in, int* ph,
                 int* pw) {
  Blob<Dtype> bottom(in), top;
  std::vector<Blob<Dtype>*> b{&bottom}, t{&top};
  PoolingLayer<Dtype> layer(ParseLayer(text));
  layer.SetUp(b, t);
  *ph = top.height();
  *pw = top.width();
}

struct Case {
  const char* param;
  std::vector<int> shape;
  bool cudnn_size;  // cuDNN's (floor) size is the layer's
};

TEST(CudnnPoolTest, DescriptorsTellWhereCudnnGivesTheLayersSize) {
  const Case cases[] = {
      {"name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
       "stride: 2 }",
       {2, 3, 7, 9},
       true},
      {"name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
       "stride: 2 }",
       {2, 3, 7, 8},
       false},  // Caffe rounds 2.5 up
      {"name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
       "stride: 2 pad: 1 }",
       {2, 3, 7, 7},
       true},
      {"name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 3 "
       "stride: 2 pad: 1 }",
       {2, 3, 8, 8},
       false},
      {"name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 2 "
       "stride: 2 }",
       {4, 5, 6, 6},
       true},
      {"name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
       "stride: 2 round_mode: FLOOR }",
       {2, 3, 7, 8},
       true},
      {"name: 'p' type: 'Pooling' pooling_param { pool: AVE "
       "global_pooling: true }",
       {2, 3, 5, 4},
       true},
  };
  for (const Case& c : cases) {
    int ph = 0, pw = 0;
    LayerOutput<float>(c.param, c.shape, &ph, &pw);
    PoolingParameter pp = ParseLayer(c.param).pooling_param();
    CudnnPoolShape s;
    s.num = c.shape[0];
    s.channels = c.shape[1];
    s.height = c.shape[2];
    s.width = c.shape[3];
    s.out_height = ph;
    s.out_width = pw;
    s.kernel_h = pp.global_pooling() ? s.height : pp.kernel_size();
    s.kernel_w = pp.global_pooling() ? s.width : pp.kernel_size();
    s.pad_h = s.pad_w = pp.pad();
    s.stride_h = s.stride_w = pp.stride();
    CudnnPool<float> f(s);
    CudnnPool<double> d(s);
    int n = 0, ch = 0, h = 0, w = 0;
    f.OutputDim(&n, &ch, &h, &w);
    EXPECT_EQ(n, s.num) << c.param;
    EXPECT_EQ(ch, s.channels) << c.param;
    // cuDNN rounds down: floor((H + 2 pad - k) / stride) + 1.
    EXPECT_EQ(h, (s.height + 2 * s.pad_h - s.kernel_h) / s.stride_h + 1);
    EXPECT_EQ(w, (s.width + 2 * s.pad_w - s.kernel_w) / s.stride_w + 1);
    EXPECT_EQ(f.Matches(), c.cudnn_size) << c.param;
    EXPECT_EQ(d.Matches(), c.cudnn_size) << c.param;
  }
}
#endif  // USE_CUDA

// AVE with engine CUDNN reads x and y in backward (cuDNN's interface), so
// the net must keep both for it; MAX stays on Caffe's argmax whatever the
// engine, and DEFAULT and CAFFE read nothing.
TEST(CudnnPoolTest, EngineCudnnDeclaresTheReadsOfCudnnsBackward) {
  for (const char* pool : {"MAX", "AVE"}) {
    for (const char* engine : {"DEFAULT", "CAFFE", "CUDNN"}) {
      PoolingLayer<float> layer(ParseLayer(
          std::string("name: 'p' type: 'Pooling' pooling_param { pool: ") +
          pool + " kernel_size: 2 stride: 2 engine: " + engine + " }"));
      int expected = kReadsNothing;
#ifdef USE_CUDA
      if (std::string(engine) == "CUDNN" && std::string(pool) == "AVE")
        expected = kReadsBottomData | kReadsTopData;
#endif
      EXPECT_EQ(layer.Memory().backward_reads, expected)
          << pool << " " << engine;
    }
  }
}

// In CPU mode engine CUDNN runs what DEFAULT runs and chooses no cuDNN.
TEST(CudnnPoolTest, InCpuModeEngineCudnnComputesWhatDefaultDoes) {
  for (const char* pool : {"MAX", "AVE"}) {
    std::vector<std::vector<float>> tops, diffs;
    for (const char* engine : {"DEFAULT", "CUDNN"}) {
      Blob<float> bottom(std::vector<int>{2, 3, 7, 9}), top;
      for (int i = 0; i < bottom.count(); ++i)
        bottom.mutable_cpu_data()[i] = std::sin(0.7 * i);
      std::vector<Blob<float>*> b{&bottom}, t{&top};
      PoolingLayer<float> layer(ParseLayer(
          std::string("name: 'p' type: 'Pooling' pooling_param { pool: ") +
          pool + " kernel_size: 3 stride: 2 engine: " + engine + " }"));
      layer.SetUp(b, t);
      layer.Forward(b, t);
      EXPECT_FALSE(layer.UsesCudnn());
      for (int i = 0; i < top.count(); ++i)
        top.mutable_cpu_diff()[i] = std::cos(0.3 * i);
      layer.Backward(t, std::vector<bool>{true}, b);
      tops.emplace_back(top.cpu_data(), top.cpu_data() + top.count());
      diffs.emplace_back(bottom.cpu_diff(), bottom.cpu_diff() + bottom.count());
    }
    EXPECT_EQ(tops[0], tops[1]) << pool;
    EXPECT_EQ(diffs[0], diffs[1]) << pool;
  }
}

#ifdef USE_CUDA
// The softmax axis becomes cuDNN's C; what lies before it N, after it H.
TEST(CudnnSoftmaxTest, TheTensorIsOuterByChannelsByInner) {
  for (const auto& d : {std::vector<int>{2, 5, 6}, std::vector<int>{40, 10, 1},
                        std::vector<int>{1, 3, 1}}) {
    CudnnSoftmax<float> f(d[0], d[1], d[2]);
    CudnnSoftmax<double> g(d[0], d[1], d[2]);
    int n = 0, c = 0, h = 0, w = 0;
    f.Dims(&n, &c, &h, &w);
    EXPECT_EQ((std::vector<int>{n, c, h, w}),
              (std::vector<int>{d[0], d[1], d[2], 1}));
    g.Dims(&n, &c, &h, &w);
    EXPECT_EQ((std::vector<int>{n, c, h, w}),
              (std::vector<int>{d[0], d[1], d[2], 1}));
    EXPECT_TRUE(f.Fits(d[0], d[1], d[2]));
    EXPECT_FALSE(f.Fits(d[0], d[1] + 1, d[2]));
  }
}
#endif  // USE_CUDA

// The engine keeps Caffe's declaration (backward reads the top, in place
// allowed), and in CPU mode computes what DEFAULT computes.
TEST(CudnnSoftmaxTest, InCpuModeEngineCudnnComputesWhatDefaultDoes) {
  std::vector<std::vector<double>> tops, diffs;
  for (const char* engine : {"DEFAULT", "CUDNN"}) {
    Blob<double> bottom(std::vector<int>{2, 5, 2, 3}), top;
    for (int i = 0; i < bottom.count(); ++i)
      bottom.mutable_cpu_data()[i] = std::sin(0.9 * i);
    std::vector<Blob<double>*> b{&bottom}, t{&top};
    SoftmaxLayer<double> layer(ParseLayer(
        std::string("name: 's' type: 'Softmax' softmax_param { engine: ") +
        engine + " }"));
    EXPECT_EQ(layer.Memory().backward_reads, kReadsTopData);
    EXPECT_TRUE(layer.Memory().in_place);
    layer.SetUp(b, t);
    layer.Forward(b, t);
    EXPECT_FALSE(layer.UsesCudnn());
    for (int i = 0; i < top.count(); ++i)
      top.mutable_cpu_diff()[i] = std::cos(0.4 * i);
    layer.Backward(t, std::vector<bool>{true}, b);
    tops.emplace_back(top.cpu_data(), top.cpu_data() + top.count());
    diffs.emplace_back(bottom.cpu_diff(), bottom.cpu_diff() + bottom.count());
  }
  EXPECT_EQ(tops[0], tops[1]);
  EXPECT_EQ(diffs[0], diffs[1]);
}

#ifdef USE_CUDA
// One engine per layer, rebuilt when the count or the function changes.
TEST(CudnnActivationTest, FindKeepsTheEngineWhileTheCountHolds) {
  std::shared_ptr<void> slot;
  CudnnActivation<float>* a =
      CudnnActivation<float>::Find(&slot, CUDNN_ACTIVATION_SIGMOID, 120);
  EXPECT_EQ(a->count(), 120);
  EXPECT_EQ(CudnnActivation<float>::Find(&slot, CUDNN_ACTIVATION_SIGMOID, 120),
            a);
  CudnnActivation<float>* b =
      CudnnActivation<float>::Find(&slot, CUDNN_ACTIVATION_SIGMOID, 60);
  EXPECT_EQ(b->count(), 60);
  CudnnActivation<float>* c =
      CudnnActivation<float>::Find(&slot, CUDNN_ACTIVATION_TANH, 60);
  EXPECT_EQ(c->mode(), CUDNN_ACTIVATION_TANH);
  EXPECT_EQ(slot.get(), static_cast<void*>(c));
}
#endif  // USE_CUDA

// ReLU, Sigmoid and TanH keep their declarations with engine CUDNN (ReLU's
// backward reads the bottom, the others' the top; in place allowed) and in
// CPU mode compute what DEFAULT does.
template <typename LayerType>
void ExpectEngineCudnnOnCpuIsDefault(int reads, const std::string& type,
                                     const std::string& param_field) {
  std::vector<std::vector<float>> tops, diffs;
  for (const char* engine : {"DEFAULT", "CUDNN"}) {
    Blob<float> bottom(std::vector<int>{2, 3, 4, 5}), top;
    for (int i = 0; i < bottom.count(); ++i)
      bottom.mutable_cpu_data()[i] = 2 * std::sin(0.9 * i);
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    LayerType layer(ParseLayer("name: 'a' type: '" + type + "' " + param_field +
                               " { engine: " + engine + " }"));
    EXPECT_EQ(layer.Memory().backward_reads, reads) << type;
    EXPECT_TRUE(layer.Memory().in_place) << type;
    layer.SetUp(b, t);
    layer.Forward(b, t);
    for (int i = 0; i < top.count(); ++i)
      top.mutable_cpu_diff()[i] = std::cos(0.4 * i);
    layer.Backward(t, std::vector<bool>{true}, b);
    tops.emplace_back(top.cpu_data(), top.cpu_data() + top.count());
    diffs.emplace_back(bottom.cpu_diff(), bottom.cpu_diff() + bottom.count());
  }
  EXPECT_EQ(tops[0], tops[1]) << type;
  EXPECT_EQ(diffs[0], diffs[1]) << type;
}

TEST(CudnnActivationTest, InCpuModeEngineCudnnComputesWhatDefaultDoes) {
  ExpectEngineCudnnOnCpuIsDefault<SigmoidLayer<float>>(kReadsTopData, "Sigmoid",
                                                       "sigmoid_param");
  ExpectEngineCudnnOnCpuIsDefault<TanHLayer<float>>(kReadsTopData, "TanH",
                                                    "tanh_param");
  ExpectEngineCudnnOnCpuIsDefault<ReLULayer<float>>(kReadsBottomData, "ReLU",
                                                    "relu_param");
}

#ifdef USE_CUDA
// cuDNN holds the layer's parameters as given (it divides alpha by n
// itself, as Caffe's formula does) and takes local_size up to 16.
TEST(CudnnLrnTest, DescriptorHoldsTheLayersParameters) {
  CudnnLrnShape s{2, 7, 4, 3, 5, 0.5, 0.75, 2.0};
  CudnnLrn<float> f(s);
  unsigned n = 0;
  double alpha = 0, beta = 0, k = 0;
  f.Parameters(&n, &alpha, &beta, &k);
  EXPECT_EQ(n, 5u);
  EXPECT_DOUBLE_EQ(alpha, 0.5);
  EXPECT_DOUBLE_EQ(beta, 0.75);
  EXPECT_DOUBLE_EQ(k, 2.0);
  EXPECT_TRUE(CudnnLrn<float>::Supports(5, 0.75, 1.0));
  EXPECT_TRUE(CudnnLrn<double>::Supports(15, 0.75, 1.0));
  EXPECT_FALSE(CudnnLrn<float>::Supports(17, 0.75, 1.0));
  EXPECT_FALSE(CudnnLrn<float>::Supports(5, 0.001, 1.0));
  EXPECT_FALSE(CudnnLrn<float>::Supports(5, 0.75, 0.0));
}
#endif  // USE_CUDA

// engine CUDNN across channels (parameters cuDNN takes) declares that
// backward reads bottom and top; otherwise the bottom only, as Caffe's.
TEST(CudnnLrnTest, EngineCudnnDeclaresTheReadsOfCudnnsBackward) {
  const struct {
    const char* param;
    bool cudnn;
  } cases[] = {
      {"local_size: 5 engine: CUDNN", true},
      {"local_size: 5 engine: DEFAULT", false},
      {"local_size: 5 engine: CAFFE", false},
      {"local_size: 17 engine: CUDNN", false},
      {"local_size: 3 norm_region: WITHIN_CHANNEL engine: CUDNN", false}};
  for (const auto& c : cases) {
    LRNLayer<float> layer(ParseLayer(
        std::string("name: 'n' type: 'LRN' lrn_param { ") + c.param + " }"));
    int expected = kReadsBottomData;
#ifdef USE_CUDA
    if (c.cudnn) expected = kReadsBottomData | kReadsTopData;
#endif
    EXPECT_EQ(layer.Memory().backward_reads, expected) << c.param;
  }
}

// In CPU mode engine CUDNN runs the layer's loops (and keeps their scale).
TEST(CudnnLrnTest, InCpuModeEngineCudnnComputesWhatDefaultDoes) {
  std::vector<std::vector<float>> tops, diffs;
  for (const char* engine : {"DEFAULT", "CUDNN"}) {
    Blob<float> bottom(std::vector<int>{2, 7, 4, 3}), top;
    for (int i = 0; i < bottom.count(); ++i)
      bottom.mutable_cpu_data()[i] = std::sin(0.9 * i);
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    LRNLayer<float> layer(ParseLayer(
        std::string("name: 'n' type: 'LRN' lrn_param { local_size: 5 "
                    "engine: ") +
        engine + " }"));
    layer.SetUp(b, t);
    layer.Forward(b, t);
    EXPECT_FALSE(layer.UsesCudnn());
    EXPECT_EQ(layer.InternalBytes(), sizeof(float) * bottom.count());
    for (int i = 0; i < top.count(); ++i)
      top.mutable_cpu_diff()[i] = std::cos(0.4 * i);
    layer.Backward(t, std::vector<bool>{true}, b);
    tops.emplace_back(top.cpu_data(), top.cpu_data() + top.count());
    diffs.emplace_back(bottom.cpu_diff(), bottom.cpu_diff() + bottom.count());
  }
  EXPECT_EQ(tops[0], tops[1]);
  EXPECT_EQ(diffs[0], diffs[1]);
}

}  // namespace
}  // namespace caffe
