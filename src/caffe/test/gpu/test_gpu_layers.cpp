// GPU layer tests (ctest label `gpu`): each layer's forward and backward on
// the GPU against its CPU code, and finite-difference gradient checks run
// in GPU mode.  Without a GPU every test here skips, printing why.
//
// Tolerance: GPU and CPU agree within 1e-4 relative (float) and 1e-10
// (double), measured against max(1, |cpu value|).  The two sides sum in
// different orders (cuBLAS vs OpenBLAS, per-thread gathers), so equality
// is not expected; a wrong index or a missed term shows up far above it.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/filler.hpp"
#include "caffe/layers/lrn_layer.hpp"
#include "caffe/layers/pooling_layer.hpp"
#include "caffe/layers/softmax_layer.hpp"
#include "caffe/test/gpu_test_util.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/util/conv_algorithm.hpp"
#include "caffe/util/cuda.hpp"
#include "caffe/util/cudnn_conv_batch.hpp"
#include "caffe/util/gpu_math_options.hpp"

namespace caffe {
namespace {

struct LayerCase {
  const char* name;
  const char* prototxt;       // the LayerParameter
  std::vector<int> shape;     // of each bottom
  int bottoms;
  int tops = 0;               // 0: one, or one per bottom when several
  bool in_place = false;      // the top is bottom 0 (as nets write it)
};

void PrintTo(const LayerCase& c, std::ostream* os) { *os << c.name; }

const LayerCase kCases[] = {
    {"ReLU", R"(type: "ReLU")", {2, 3, 5, 4}, 1},
    {"LeakyReLU", R"(type: "ReLU" relu_param { negative_slope: 0.1 })",
     {2, 3, 5, 4}, 1},
    {"Sigmoid", R"(type: "Sigmoid")", {2, 3, 5, 4}, 1},
    {"TanH", R"(type: "TanH")", {2, 3, 5, 4}, 1},
    {"ReLUCudnn", R"(type: "ReLU" relu_param { engine: CUDNN })",
     {2, 3, 5, 4}, 1},
    {"ReLUCudnnInPlace", R"(type: "ReLU" relu_param { engine: CUDNN })",
     {2, 3, 5, 4}, 1, 0, true},
    {"LeakyReLUEngineCudnn", R"(type: "ReLU" relu_param {
       negative_slope: 0.1 engine: CUDNN })", {2, 3, 5, 4}, 1},
    {"SigmoidCudnn", R"(type: "Sigmoid" sigmoid_param { engine: CUDNN })",
     {2, 3, 5, 4}, 1},
    {"SigmoidCudnnInPlace", R"(type: "Sigmoid" sigmoid_param {
       engine: CUDNN })", {2, 3, 5, 4}, 1, 0, true},
    {"TanHCudnn", R"(type: "TanH" tanh_param { engine: CUDNN })",
     {2, 3, 5, 4}, 1},
    {"TanHCudnnInPlace", R"(type: "TanH" tanh_param { engine: CUDNN })",
     {2, 3, 5, 4}, 1, 0, true},
    {"Dropout", R"(type: "Dropout" dropout_param { dropout_ratio: 0.3 })",
     {2, 3, 5, 4}, 1},
    {"InnerProduct", R"(type: "InnerProduct" inner_product_param {
       num_output: 7 weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {3, 2, 3, 4}, 1},
    {"InnerProductTransposed", R"(type: "InnerProduct" inner_product_param {
       num_output: 5 transpose: true weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {3, 6}, 1},
    {"Convolution", R"(type: "Convolution" convolution_param {
       num_output: 4 kernel_size: 3 pad: 1 stride: 2
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 3, 7, 6}, 1},
    {"ConvolutionIm2col", R"(type: "Convolution" convolution_param {
       num_output: 4 kernel_size: 3 pad: 1 stride: 2 engine: CAFFE
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 3, 7, 6}, 1},
    {"ConvolutionGroupDilated", R"(type: "Convolution" convolution_param {
       num_output: 6 kernel_h: 3 kernel_w: 2 dilation: 2 group: 3 pad: 1
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 3, 8, 7}, 1},
    {"Convolution1x1", R"(type: "Convolution" convolution_param {
       num_output: 5 kernel_size: 1 bias_term: false
       weight_filler { type: "gaussian" std: 0.3 } })",
     {2, 4, 3, 3}, 1},
    {"ConvolutionTwoBottoms", R"(type: "Convolution" convolution_param {
       num_output: 3 kernel_size: 2
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 2, 5, 5}, 2},
    {"Convolution3D", R"(type: "Convolution" convolution_param {
       num_output: 3 kernel_size: 3 kernel_size: 2 kernel_size: 2 pad: 1
       stride: 2 stride: 1 stride: 1 dilation: 1 dilation: 2 dilation: 1
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 2, 5, 6, 4}, 1},
    {"ConvolutionForceND", R"(type: "Convolution" convolution_param {
       num_output: 4 kernel_size: 3 pad: 1 stride: 2 force_nd_im2col: true
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 3, 7, 6}, 1},
    {"Deconvolution3D", R"(type: "Deconvolution" convolution_param {
       num_output: 2 kernel_size: 2 stride: 2 group: 2
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 4, 3, 2, 3}, 1},
    {"Im2col", R"(type: "Im2col" convolution_param {
       kernel_size: 3 pad: 1 stride: 2 dilation: 1 })",
     {2, 3, 7, 6}, 1},
    {"Im2col3D", R"(type: "Im2col" convolution_param {
       kernel_size: 2 kernel_size: 3 kernel_size: 2 pad: 1 pad: 0 pad: 1
       stride: 1 stride: 2 stride: 1 dilation: 2 dilation: 1 dilation: 1 })",
     {2, 2, 5, 7, 4}, 1},
    {"Deconvolution", R"(type: "Deconvolution" convolution_param {
       num_output: 4 kernel_size: 3 pad: 1 stride: 2
       weight_filler { type: "gaussian" std: 0.3 }
       bias_filler { type: "gaussian" std: 0.3 } })",
     {2, 3, 4, 5}, 1},
    {"DeconvolutionGroupNoBias", R"(type: "Deconvolution" convolution_param {
       num_output: 6 kernel_size: 2 stride: 2 group: 3 bias_term: false
       weight_filler { type: "gaussian" std: 0.3 } })",
     {2, 3, 3, 3}, 1},
    {"Slice", R"(type: "Slice" slice_param { axis: 1 slice_point: 1
       slice_point: 4 })", {2, 6, 3, 2}, 1, 3},
    {"Tile", R"(type: "Tile" tile_param { axis: 1 tiles: 3 })",
     {2, 3, 2, 2}, 1},
    {"EuclideanLoss", R"(type: "EuclideanLoss")", {4, 5}, 2, 1},
    {"PoolingMax", R"(type: "Pooling" pooling_param {
       pool: MAX kernel_size: 3 stride: 2 })",
     {2, 3, 7, 8}, 1},
    {"PoolingMaxPadded", R"(type: "Pooling" pooling_param {
       pool: MAX kernel_size: 3 stride: 2 pad: 1 })",
     {2, 3, 6, 6}, 1},
    {"PoolingAve", R"(type: "Pooling" pooling_param {
       pool: AVE kernel_size: 3 stride: 2 pad: 1 })",
     {2, 3, 7, 8}, 1},
    {"PoolingStochastic", R"(type: "Pooling" pooling_param {
       pool: STOCHASTIC kernel_size: 3 stride: 2 })",
     {2, 3, 7, 8}, 1},
    {"PoolingGlobalAve", R"(type: "Pooling" pooling_param {
       pool: AVE global_pooling: true })",
     {2, 3, 5, 5}, 1},
    // engine: CUDNN: AVE on cuDNN on shapes whose size cuDNN gives (it
    // rounds down), the layer's kernels on one where it does not, and MAX
    // on the layer's kernels whatever the engine.
    {"PoolingAveCudnn", R"(type: "Pooling" pooling_param {
       pool: AVE kernel_size: 3 stride: 2 pad: 1 engine: CUDNN })",
     {2, 3, 7, 7}, 1},
    {"PoolingAveCudnnUnpadded", R"(type: "Pooling" pooling_param {
       pool: AVE kernel_size: 2 stride: 2 engine: CUDNN })",
     {2, 3, 6, 8}, 1},
    {"PoolingAveCudnnCeil", R"(type: "Pooling" pooling_param {
       pool: AVE kernel_size: 3 stride: 2 pad: 1 engine: CUDNN })",
     {2, 3, 8, 8}, 1},
    {"PoolingMaxEngineCudnn", R"(type: "Pooling" pooling_param {
       pool: MAX kernel_size: 3 stride: 2 engine: CUDNN })",
     {2, 3, 7, 9}, 1},
    {"Softmax", R"(type: "Softmax")", {2, 5, 2, 3}, 1},
    {"SoftmaxRows", R"(type: "Softmax")", {4, 10}, 1},
    {"SoftmaxCudnn", R"(type: "Softmax" softmax_param { engine: CUDNN })",
     {2, 5, 2, 3}, 1},
    {"SoftmaxCudnnRows", R"(type: "Softmax" softmax_param { engine: CUDNN })",
     {4, 10}, 1},
    {"SoftmaxCudnnAxis2", R"(type: "Softmax" softmax_param { engine: CUDNN
       axis: 2 })",
     {2, 3, 4, 5}, 1},
    {"SoftmaxCudnnInPlace", R"(type: "Softmax" softmax_param {
       engine: CUDNN })",
     {2, 5, 2, 3}, 1, 0, true},
    {"SoftmaxAxis2", R"(type: "Softmax" softmax_param { axis: 2 })",
     {2, 3, 4, 2}, 1},
    {"AbsVal", R"(type: "AbsVal")", {2, 3, 4, 5}, 1},
    {"ReductionSum", R"(type: "Reduction" reduction_param { axis: 1 })",
     {2, 3, 4, 5}, 1},
    {"ReductionAsum", R"(type: "Reduction" reduction_param {
       operation: ASUM axis: 2 coeff: 0.5 })", {2, 3, 4, 5}, 1},
    {"ReductionSumsq", R"(type: "Reduction" reduction_param {
       operation: SUMSQ axis: 0 })", {2, 3, 4, 5}, 1},
    {"ReductionMean", R"(type: "Reduction" reduction_param {
       operation: MEAN axis: -1 })", {2, 3, 4, 5}, 1},
    {"Clip", R"(type: "Clip" clip_param { min: -0.6 max: 0.7 })",
     {2, 3, 4, 5}, 1},
    {"Swish", R"(type: "Swish" swish_param { beta: 1.5 })", {2, 3, 4, 5}, 1},
    {"BNLL", R"(type: "BNLL")", {2, 3, 4, 5}, 1},
    {"ELU", R"(type: "ELU" elu_param { alpha: 0.8 })", {2, 3, 4, 5}, 1},
    {"ELUNegativeAlpha", R"(type: "ELU" elu_param { alpha: -0.5 })",
     {2, 3, 4, 5}, 1},
    {"Exp", R"(type: "Exp" exp_param { base: 2 scale: 0.5 shift: 0.3 })",
     {2, 3, 4, 5}, 1},
    {"Log", R"(type: "Log" log_param { base: 3 scale: 0.5 shift: 10 })",
     {2, 3, 4, 5}, 1},
    {"PowerSquare", R"(type: "Power" power_param { power: 2 scale: 0.5
       shift: 1 })", {2, 3, 4, 5}, 1},
    {"PowerCubeNoShift", R"(type: "Power" power_param { power: 3
       scale: 2 })", {2, 3, 4, 5}, 1},
    {"PowerFractional", R"(type: "Power" power_param { power: 2.5
       scale: 0.7 shift: 8 })", {2, 3, 4, 5}, 1},
    {"PowerConstant", R"(type: "Power" power_param { power: 2 scale: 0
       shift: 3 })", {2, 3, 4, 5}, 1},
    {"PReLU", R"(type: "PReLU" prelu_param { filler { type: "gaussian"
       std: 0.3 } })", {2, 3, 4, 5}, 1},
    {"PReLUShared", R"(type: "PReLU" prelu_param { channel_shared: true })",
     {2, 3, 4, 5}, 1},
    // Layers without GPU kernels yet run their CPU code in GPU mode; the
    // same comparison proves the head synchronization around them.
    {"LRN", R"(type: "LRN" lrn_param { local_size: 3 })", {2, 5, 3, 3}, 1},
    {"LRNBeta", R"(type: "LRN" lrn_param { local_size: 5 beta: 0.6 k: 2 })",
     {2, 7, 4, 3}, 1},
    {"LRNWithin", R"(type: "LRN" lrn_param { local_size: 3
       norm_region: WITHIN_CHANNEL })",
     {2, 3, 5, 5}, 1},
    {"LRNWithinWide", R"(type: "LRN" lrn_param { local_size: 5 beta: 0.6
       norm_region: WITHIN_CHANNEL })",
     {2, 2, 3, 4}, 1},
    {"LRNCudnn", R"(type: "LRN" lrn_param { local_size: 3 engine: CUDNN })",
     {2, 5, 3, 3}, 1},
    {"LRNCudnnBeta", R"(type: "LRN" lrn_param { local_size: 5 beta: 0.6 k: 2
       alpha: 0.5 engine: CUDNN })",
     {2, 7, 4, 3}, 1},
    {"LRNCudnnWithin", R"(type: "LRN" lrn_param { local_size: 3
       norm_region: WITHIN_CHANNEL engine: CUDNN })",
     {2, 3, 5, 5}, 1},
    {"EltwiseFallback", R"(type: "Eltwise")", {2, 3, 4, 4}, 2},
    {"EltwiseMax", R"(type: "Eltwise" eltwise_param { operation: MAX })",
     {2, 3, 4, 4}, 2},
    {"EltwiseMaxOfThree", R"(type: "Eltwise" eltwise_param {
       operation: MAX })", {2, 3, 4, 4}, 3},
    {"MVN", R"(type: "MVN")", {2, 3, 4, 5}, 1},
    {"MVNAcrossChannels", R"(type: "MVN" mvn_param { across_channels: true })",
     {2, 3, 4, 5}, 1},
    {"MVNMeanOnly", R"(type: "MVN" mvn_param { normalize_variance: false })",
     {2, 3, 4, 5}, 1},
    // ResNet's BatchNorm -> Scale (with bias) chain, out of place and in
    // place (where Scale keeps its own copy of the input).
    {"BatchNorm", R"(type: "BatchNorm")", {2, 3, 4, 5}, 1},
    {"BatchNormInPlace", R"(type: "BatchNorm")", {2, 3, 4, 5}, 1, 0, true},
    {"BatchNormGlobalStats", R"(type: "BatchNorm" batch_norm_param {
       use_global_stats: true })", {2, 3, 4, 5}, 1},
    {"BatchNormOneImage", R"(type: "BatchNorm")", {1, 4, 7, 7}, 1, 0, true},
    {"ScaleWithBias", R"(type: "Scale" scale_param { bias_term: true
       filler { type: "gaussian" std: 0.5 }
       bias_filler { type: "gaussian" std: 0.5 } })", {2, 3, 4, 5}, 1},
    {"ScaleWithBiasInPlace", R"(type: "Scale" scale_param { bias_term: true
       filler { type: "gaussian" std: 0.5 }
       bias_filler { type: "gaussian" std: 0.5 } })",
     {2, 3, 4, 5}, 1, 0, true},
    {"ScaleTwoBottoms", R"(type: "Scale" scale_param { axis: 0 })",
     {2, 3, 4, 5}, 2, 1},
    {"Bias", R"(type: "Bias" bias_param { filler { type: "gaussian"
       std: 0.5 } })", {2, 3, 4, 5}, 1},
    {"ReLUInPlace", R"(type: "ReLU")", {2, 3, 5, 4}, 1, 0, true},
    {"EltwiseSumCoeff", R"(type: "Eltwise" eltwise_param { operation: SUM
       coeff: 0.5 coeff: -2 })", {2, 3, 4, 4}, 2},
    {"EltwiseProd", R"(type: "Eltwise" eltwise_param { operation: PROD })",
     {2, 3, 4, 4}, 2},
    {"Concat", R"(type: "Concat" concat_param { axis: 1 })", {2, 3, 2, 2}, 2,
     1},
    {"Split", R"(type: "Split")", {2, 3, 2, 2}, 1, 2},
    {"Flatten", R"(type: "Flatten")", {2, 3, 2, 2}, 1},
    {"Convolution1x1Stride2", R"(type: "Convolution" convolution_param {
       num_output: 6 kernel_size: 1 stride: 2 bias_term: false
       weight_filler { type: "gaussian" std: 0.3 } })",
     {2, 4, 7, 7}, 1},
};

int TopCount(const LayerCase& c, const LayerParameter& param) {
  if (c.tops > 0) return c.tops;
  return param.type() == "Eltwise" || c.bottoms == 1 ? 1 : c.bottoms;
}

template <typename Dtype>
double Tolerance() {
  return sizeof(Dtype) == sizeof(float) ? 1e-4 : 1e-10;
}

template <typename Dtype>
struct RunResult {
  std::vector<std::vector<Dtype> > tops, bottom_diffs, param_diffs;
};

// Builds the layer from `c`, fills bottoms and parameters from fixed seeds,
// runs forward and backward in `mode` and returns what came out.
// `workspace_limit`, where given, replaces the layer's (mem_param's).
constexpr size_t kLayersOwnLimit = SIZE_MAX;
template <typename Dtype>
RunResult<Dtype> Run(const LayerCase& c, Caffe::Brew mode,
                     size_t workspace_limit = kLayersOwnLimit) {
  ModeScope scope(mode);
  LayerParameter param;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(c.prototxt, &param));
  param.set_name(c.name);
  param.set_phase(TRAIN);
  std::vector<std::unique_ptr<Blob<Dtype> > > owned;
  std::vector<Blob<Dtype>*> bottom, top;
  Caffe::set_random_seed(1701);
  for (int i = 0; i < c.bottoms; ++i) {
    owned.emplace_back(new Blob<Dtype>(c.shape));
    FillerParameter f;
    f.set_type("gaussian");
    f.set_std(1);
    GaussianFiller<Dtype>(f).Fill(owned.back().get());
    bottom.push_back(owned.back().get());
  }
  const int tops = TopCount(c, param);
  for (int i = 0; i < tops; ++i) {
    if (c.in_place && i == 0) {
      top.push_back(bottom[0]);
      continue;
    }
    owned.emplace_back(new Blob<Dtype>());
    top.push_back(owned.back().get());
  }
  Caffe::set_random_seed(1702);
  std::shared_ptr<Layer<Dtype> > layer = LayerRegistry<Dtype>::CreateLayer(param);
  if (workspace_limit != kLayersOwnLimit)
    layer->set_workspace_limit(workspace_limit);
  layer->SetUp(bottom, top);
  Caffe::set_random_seed(1703);  // dropout masks
  layer->Forward(bottom, top);
  for (Blob<Dtype>* t : top) {
    Dtype* d = t->mutable_cpu_diff();
    for (int i = 0; i < t->count(); ++i) d[i] = Dtype(std::sin(0.7 * i + 0.3));
  }
  for (auto& p : layer->blobs())
    std::fill(p->mutable_cpu_diff(), p->mutable_cpu_diff() + p->count(),
              Dtype(0));
  layer->Backward(top, std::vector<bool>(bottom.size(), true), bottom);
  RunResult<Dtype> r;
  for (Blob<Dtype>* t : top)
    r.tops.emplace_back(t->cpu_data(), t->cpu_data() + t->count());
  for (Blob<Dtype>* b : bottom)
    r.bottom_diffs.emplace_back(b->cpu_diff(), b->cpu_diff() + b->count());
  for (auto& p : layer->blobs())
    r.param_diffs.emplace_back(p->cpu_diff(), p->cpu_diff() + p->count());
  return r;
}

template <typename Dtype>
void ExpectClose(const std::vector<std::vector<Dtype> >& gpu,
                 const std::vector<std::vector<Dtype> >& cpu,
                 const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  for (size_t b = 0; b < gpu.size(); ++b) {
    ASSERT_EQ(gpu[b].size(), cpu[b].size()) << what << " " << b;
    for (size_t i = 0; i < gpu[b].size(); ++i) {
      const double scale = std::max(1.0, std::fabs(double(cpu[b][i])));
      ASSERT_NEAR(gpu[b][i], cpu[b][i], Tolerance<Dtype>() * scale)
          << what << " " << b << " element " << i;
    }
  }
}

class GpuLayerTest : public ::testing::TestWithParam<LayerCase> {};

template <typename Dtype>
void CompareCase(const LayerCase& c) {
  RunResult<Dtype> cpu = Run<Dtype>(c, Caffe::CPU);
  RunResult<Dtype> gpu = Run<Dtype>(c, Caffe::GPU);
  ExpectClose(gpu.tops, cpu.tops, "top");
  ExpectClose(gpu.bottom_diffs, cpu.bottom_diffs, "bottom diff");
  ExpectClose(gpu.param_diffs, cpu.param_diffs, "param diff");
}

TEST_P(GpuLayerTest, FloatMatchesCpu) {
  SKIP_WITHOUT_GPU();
  CompareCase<float>(GetParam());
}

TEST_P(GpuLayerTest, DoubleMatchesCpu) {
  SKIP_WITHOUT_GPU();
  CompareCase<double>(GetParam());
}

// Finite differences in GPU mode (double, as Caffe's checks), out of place
// even for in-place cases: the checker perturbs the input and reruns the
// forward, which needs the input intact.
TEST_P(GpuLayerTest, GradientCheck) {
  SKIP_WITHOUT_GPU();
  const LayerCase& c = GetParam();
  // Dropout draws its mask from the seeded host stream, which the checker
  // seeds again before every forward, so it checks as any layer.
  // STOCHASTIC pooling wants inputs of one sign, which this Gaussian
  // bottom is not; PoolingLayerTest.GradientStochasticTrain checks it on
  // the CPU, and FloatMatchesCpu holds the GPU to the CPU.
  if (std::string(c.name) == "PoolingStochastic")
    GTEST_SKIP() << c.name << " picks in proportion to its inputs, which "
                    "this check draws of either sign; the CPU suite's "
                    "GradientStochasticTrain checks it, FloatMatchesCpu "
                    "compares it with the CPU";
  ModeScope scope(Caffe::GPU);
  LayerParameter param;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(c.prototxt, &param));
  param.set_name(c.name);
  param.set_phase(TRAIN);
  std::vector<std::unique_ptr<Blob<double> > > owned;
  std::vector<Blob<double>*> bottom, top;
  Caffe::set_random_seed(1701);
  for (int i = 0; i < c.bottoms; ++i) {
    owned.emplace_back(new Blob<double>(c.shape));
    FillerParameter f;
    f.set_type("gaussian");
    f.set_std(1);
    GaussianFiller<double>(f).Fill(owned.back().get());
    bottom.push_back(owned.back().get());
  }
  const int tops = TopCount(c, param);
  for (int i = 0; i < tops; ++i) {
    owned.emplace_back(new Blob<double>());
    top.push_back(owned.back().get());
  }
  std::shared_ptr<Layer<double> > layer =
      LayerRegistry<double>::CreateLayer(param);
  // ReLU and max pooling have kinks: a step of 1e-3 and a 1e-3 threshold
  // as Caffe's own checks use.
  GradientChecker<double> checker(1e-3, 1e-3, 1701, 0, 1e-3);
  checker.CheckGradientExhaustive(layer.get(), bottom, top);
}

INSTANTIATE_TEST_SUITE_P(Layers, GpuLayerTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<LayerCase>& i) {
                           return std::string(i.param.name);
                         });

// Channel sums shared by several blocks (thread-block clusters,
// gpu_launch.cuh): BatchNorm's statistics and gradient means, the Scale's
// and the Bias's parameter gradients, over planes large enough that each
// of 8 blocks gets terms (2 x 40 x 40 = 3,200 a channel) and, for the
// split by shape (0), large enough that the shape asks for 8 (16,384).
const LayerCase kSplitCases[] = {
    {"BatchNormWide", R"(type: "BatchNorm")", {2, 3, 40, 40}, 1},
    {"BatchNormWideInPlace", R"(type: "BatchNorm")", {2, 3, 40, 40}, 1, 0,
     true},
    {"ScaleWithBiasWide", R"(type: "Scale" scale_param { bias_term: true
       filler { type: "gaussian" std: 0.5 }
       bias_filler { type: "gaussian" std: 0.5 } })", {2, 3, 40, 40}, 1},
    {"BiasWide", R"(type: "Bias" bias_param { filler { type: "gaussian"
       std: 0.5 } })", {2, 3, 40, 40}, 1},
    {"BatchNormLarge", R"(type: "BatchNorm")", {4, 2, 64, 64}, 1, 0, true},
};

// The split is process-wide: a scope sets it and puts back the default.
class ChannelSplitScope {
 public:
  explicit ChannelSplitScope(int blocks) { SetChannelSplit(blocks); }
  ~ChannelSplitScope() { SetChannelSplit(0); }
};

TEST(GpuChannelSplitTest, EverySplitMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (const LayerCase& c : kSplitCases) {
    for (int blocks : {0, 1, 2, 3, 8}) {
      SCOPED_TRACE(std::string(c.name) + ", split " + std::to_string(blocks));
      ChannelSplitScope split(blocks);
      CompareCase<float>(c);
      CompareCase<double>(c);
    }
  }
}

// The Scale's gradients sum in float: 8 blocks add 3,200 terms a channel
// in another order than one block, which changes some rounding of the 3
// channels' sums; the same split twice gives the same bits.
TEST(GpuChannelSplitTest, SplitSumsAreDeterministicAndTheirOwn) {
  SKIP_WITHOUT_GPU();
  const LayerCase& c = kSplitCases[2];
  RunResult<float> one, eight, eight_again;
  {
    ChannelSplitScope split(1);
    one = caffe::Run<float>(c, Caffe::GPU);
  }
  {
    ChannelSplitScope split(8);
    eight = caffe::Run<float>(c, Caffe::GPU);
    eight_again = caffe::Run<float>(c, Caffe::GPU);
  }
  EXPECT_EQ(eight.tops, eight_again.tops);
  EXPECT_EQ(eight.bottom_diffs, eight_again.bottom_diffs);
  EXPECT_EQ(eight.param_diffs, eight_again.param_diffs);
#ifdef USE_CUDA
  const bool clusters = GpuHasClusters();
#else
  const bool clusters = false;  // not reached: no GPU without CUDA
#endif
  if (!clusters) {
    std::cout << "This GPU has no thread-block clusters: every split runs "
                 "one block per channel, so the sums must not change.\n";
    EXPECT_EQ(one.param_diffs, eight.param_diffs);
    return;
  }
  EXPECT_NE(one.param_diffs, eight.param_diffs)
      << "8 blocks per channel summed in the order of one";
}

TEST(GpuChannelSplitTest, RefusesSplitsPastEight) {
  EXPECT_THROW(SetChannelSplit(9), Error);
  EXPECT_THROW(SetChannelSplit(-1), Error);
  EXPECT_EQ(ChannelSplit(), 0);
}

// Convolutions under workspace limits from none to plenty: each direction
// takes cuDNN for the whole batch, cuDNN a few images at a time, or im2col
// + cuBLAS (util/cudnn_conv_batch.hpp), and whatever each limit gives, the
// layer matches the CPU.  9 images, so halvings leave shorter last calls.
const LayerCase kChunkCases[] = {
    {"Conv3x3", R"(type: "Convolution" convolution_param {
       num_output: 16 kernel_size: 3 pad: 1
       weight_filler { type: "gaussian" std: 0.1 }
       bias_filler { type: "gaussian" std: 0.1 } })", {9, 16, 24, 24}, 1},
    {"Conv1x1Stride2", R"(type: "Convolution" convolution_param {
       num_output: 32 kernel_size: 1 stride: 2 bias_term: false
       weight_filler { type: "gaussian" std: 0.1 } })", {9, 16, 14, 14}, 1},
    {"Conv7x7Stride2", R"(type: "Convolution" convolution_param {
       num_output: 8 kernel_size: 7 pad: 3 stride: 2
       weight_filler { type: "gaussian" std: 0.1 }
       bias_filler { type: "gaussian" std: 0.1 } })", {9, 3, 32, 32}, 1},
};
const size_t kChunkLimits[] = {0, size_t(1) << 12, size_t(1) << 16,
                               size_t(1) << 20, size_t(64) << 20};

TEST(GpuConvChunkTest, EveryWorkspaceLimitMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (const LayerCase& c : kChunkCases) {
    const RunResult<float> cpu_f = caffe::Run<float>(c, Caffe::CPU);
    const RunResult<double> cpu_d = caffe::Run<double>(c, Caffe::CPU);
    for (size_t limit : kChunkLimits) {
      SCOPED_TRACE(std::string(c.name) + ", limit " + std::to_string(limit));
      const RunResult<float> f = caffe::Run<float>(c, Caffe::GPU, limit);
      ExpectClose(f.tops, cpu_f.tops, "top");
      ExpectClose(f.bottom_diffs, cpu_f.bottom_diffs, "bottom diff");
      ExpectClose(f.param_diffs, cpu_f.param_diffs, "param diff");
      const RunResult<double> d = caffe::Run<double>(c, Caffe::GPU, limit);
      ExpectClose(d.tops, cpu_d.tops, "top");
      ExpectClose(d.bottom_diffs, cpu_d.bottom_diffs, "bottom diff");
      ExpectClose(d.param_diffs, cpu_d.param_diffs, "param diff");
    }
  }
}

#ifdef USE_CUDA
// What each limit chooses, printed for the record, and what it promises:
// the workspace stays within the limit, a call never passes the batch,
// and the same limit chooses the same again (the bit-identity of
// mem_param rests on it).
TEST(GpuConvChunkTest, ChoicesStayWithinTheLimitAndRepeat) {
  SKIP_WITHOUT_GPU();
  ModeScope scope(Caffe::GPU);
  // num, channels, height, width; out: channels, height, width; kernel,
  // pad, stride, dilation (h, w); group.
  const CudnnConvShape shapes[] = {
      {9, 16, 24, 24, 16, 24, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {64, 64, 56, 56, 64, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {64, 256, 56, 56, 128, 28, 28, 1, 1, 0, 0, 2, 2, 1, 1, 1}};
  const ConvDirection directions[] = {ConvDirection::kForward,
                                      ConvDirection::kData,
                                      ConvDirection::kFilter};
  for (const CudnnConvShape& s : shapes) {
    for (size_t limit : kChunkLimits) {
      CudnnConvBatch<float> a(s), b(s);
      a.ChooseAlgorithms(limit);
      b.ChooseAlgorithms(limit);
      std::cout << s.num << "x" << s.channels << "x" << s.height << "x"
                << s.width << " -> " << s.out_channels << ", kernel "
                << s.kernel_h << ", stride " << s.stride_h << ", limit "
                << limit << ": " << a.Describe() << "\n";
      // What cuDNN offered for the whole batch, for each direction that
      // runs less of it (these batches fit int: the whole is the largest).
      const std::string rankings = a.DescribeRankings();
      if (!rankings.empty()) std::cout << "  " << rankings << "\n";
      EXPECT_EQ(rankings.empty(), a.WholeBatchEverywhere());
      EXPECT_LE(a.WorkspaceBytes(), limit);
      for (ConvDirection d : directions) {
        EXPECT_LE(a.chunk(d), s.num);
        EXPECT_EQ(a.chunk(d), b.chunk(d)) << ConvDirectionName(d);
      }
      EXPECT_EQ(a.WorkspaceBytes(), b.WorkspaceBytes());
    }
  }
}
#endif  // USE_CUDA

// Threshold has no backward (it refuses to propagate), so it is not a
// case above: its forward on the GPU gives the CPU's 0s and 1s.
TEST(GpuThresholdTest, ForwardMatchesCpu) {
  SKIP_WITHOUT_GPU();
  LayerParameter param;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(
      R"(name: "t" type: "Threshold" threshold_param { threshold: 0.2 })",
      &param));
  std::vector<std::vector<float> > out;
  for (Caffe::Brew mode : {Caffe::CPU, Caffe::GPU}) {
    ModeScope scope(mode);
    Blob<float> bottom(std::vector<int>{3, 4, 5}), top;
    for (int i = 0; i < bottom.count(); ++i)
      bottom.mutable_cpu_data()[i] = std::sin(1.3 * i);
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    std::shared_ptr<Layer<float> > layer =
        LayerRegistry<float>::CreateLayer(param);
    layer->SetUp(b, t);
    layer->Forward(b, t);
    out.emplace_back(top.cpu_data(), top.cpu_data() + top.count());
  }
  EXPECT_EQ(out[1], out[0]);
  EXPECT_GT(std::count(out[0].begin(), out[0].end(), 1.0f), 10);
}

// MAX pooling whose backward never runs keeps no argmax: the GPU kernel
// then writes none, and its top is the CPU's.
TEST(GpuPoolingTest, ForwardOnlyMaxMatchesCpu) {
  SKIP_WITHOUT_GPU();
  LayerParameter param;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(
      R"(name: "p" type: "Pooling" pooling_param { pool: MAX kernel_size: 3
         stride: 2 pad: 1 })",
      &param));
  std::vector<std::vector<float> > out;
  for (Caffe::Brew mode : {Caffe::CPU, Caffe::GPU}) {
    ModeScope scope(mode);
    Blob<float> bottom(std::vector<int>{2, 3, 7, 8}), top;
    for (int i = 0; i < bottom.count(); ++i)
      bottom.mutable_cpu_data()[i] = std::sin(1.3 * i);
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    std::shared_ptr<Layer<float> > layer =
        LayerRegistry<float>::CreateLayer(param);
    layer->set_backward_runs(false);
    layer->SetUp(b, t);
    layer->Forward(b, t);
    EXPECT_EQ(layer->InternalBytes(), 0u);
    out.emplace_back(top.cpu_data(), top.cpu_data() + top.count());
  }
  EXPECT_EQ(out[1], out[0]);
}

// engine: CUDNN runs AVE on cuDNN where cuDNN's output size is the
// layer's and on the layer's kernels elsewhere; MAX always on the kernels.
TEST(GpuPoolingTest, EngineCudnnIsChosenForAveWhereItsSizeIsTheLayers) {
  SKIP_WITHOUT_GPU();
  ModeScope scope(Caffe::GPU);
  const struct {
    const char* pool;
    std::vector<int> shape;
    bool cudnn;
  } cases[] = {{"AVE", {2, 3, 7, 7}, true},
               {"AVE", {2, 3, 8, 8}, false},
               {"MAX", {2, 3, 7, 7}, false}};
  for (const auto& c : cases) {
    LayerParameter param;
    CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(
        std::string("name: 'p' type: 'Pooling' pooling_param { pool: ") +
            c.pool + " kernel_size: 3 stride: 2 pad: 1 engine: CUDNN }",
        &param));
    Blob<float> bottom(c.shape), top;
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    PoolingLayer<float> layer(param);
    layer.SetUp(b, t);
    layer.Forward(b, t);
    EXPECT_EQ(layer.UsesCudnn(), c.cudnn) << c.pool << " " << c.shape[2];
  }
}

// engine: CUDNN puts softmax on cuDNN in GPU mode; DEFAULT keeps the
// bodies the CPU shares.
TEST(GpuSoftmaxTest, EngineCudnnIsChosenOnlyWhereAsked) {
  SKIP_WITHOUT_GPU();
  ModeScope scope(Caffe::GPU);
  for (const char* engine : {"DEFAULT", "CUDNN"}) {
    LayerParameter param;
    CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(
        std::string("name: 's' type: 'Softmax' softmax_param { engine: ") +
            engine + " }",
        &param));
    Blob<float> bottom(std::vector<int>{2, 5, 2, 3}), top;
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    SoftmaxLayer<float> layer(param);
    layer.SetUp(b, t);
    layer.Forward(b, t);
    EXPECT_EQ(layer.UsesCudnn(), std::string(engine) == "CUDNN") << engine;
  }
}

// engine: CUDNN puts LRN across channels on cuDNN in GPU mode, which then
// keeps no scale; WITHIN_CHANNEL and DEFAULT stay on the layer's kernels.
TEST(GpuLrnTest, EngineCudnnIsChosenAcrossChannels) {
  SKIP_WITHOUT_GPU();
  ModeScope scope(Caffe::GPU);
  const struct {
    const char* param;
    bool cudnn;
  } cases[] = {{"local_size: 5 engine: CUDNN", true},
               {"local_size: 5", false},
               {"local_size: 3 norm_region: WITHIN_CHANNEL engine: CUDNN",
                false}};
  for (const auto& c : cases) {
    LayerParameter param;
    CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(
        std::string("name: 'n' type: 'LRN' lrn_param { ") + c.param + " }",
        &param));
    Blob<float> bottom(std::vector<int>{2, 7, 4, 3}), top;
    std::vector<Blob<float>*> b{&bottom}, t{&top};
    LRNLayer<float> layer(param);
    layer.SetUp(b, t);
    layer.Forward(b, t);
    EXPECT_EQ(layer.UsesCudnn(), c.cudnn) << c.param;
    EXPECT_EQ(layer.InternalBytes() == 0, c.cudnn) << c.param;
  }
}

// Embed's bottom holds indices, which take no gradient, so it is not a
// case above: lookups (some repeated, so table rows add several
// gradients) and the weight and bias gradients on the GPU against the CPU.
TEST(GpuEmbedTest, LookupAndGradientsMatchCpu) {
  SKIP_WITHOUT_GPU();
  LayerParameter param;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(
      R"(name: "e" type: "Embed" embed_param { num_output: 5 input_dim: 7
         weight_filler { type: "gaussian" std: 1 }
         bias_filler { type: "gaussian" std: 1 } })", &param));
  std::vector<std::vector<double> > out;
  for (Caffe::Brew mode : {Caffe::CPU, Caffe::GPU}) {
    ModeScope scope(mode);
    Blob<double> index(std::vector<int>{3, 4}), y;
    for (int i = 0; i < index.count(); ++i)
      index.mutable_cpu_data()[i] = (i * 5) % 7 % 4;  // rows 0-3, repeated
    std::vector<Blob<double>*> b{&index}, top{&y};
    Caffe::set_random_seed(1701);
    std::shared_ptr<Layer<double> > layer =
        LayerRegistry<double>::CreateLayer(param);
    layer->SetUp(b, top);
    layer->Forward(b, top);
    for (int i = 0; i < y.count(); ++i)
      y.mutable_cpu_diff()[i] = std::sin(0.7 * i + 0.3);
    for (auto& p : layer->blobs())
      std::fill(p->mutable_cpu_diff(), p->mutable_cpu_diff() + p->count(), 0.);
    layer->Backward(top, {false}, b);
    std::vector<double> r(y.cpu_data(), y.cpu_data() + y.count());
    for (auto& p : layer->blobs())
      r.insert(r.end(), p->cpu_diff(), p->cpu_diff() + p->count());
    out.push_back(r);
  }
  ASSERT_EQ(out[1].size(), out[0].size());
  for (size_t i = 0; i < out[0].size(); ++i)
    EXPECT_NEAR(out[1][i], out[0][i],
                1e-10 * std::max(1.0, std::fabs(out[0][i])))
        << "element " << i << " (top, then weight and bias diffs)";
}

// Losses whose second bottom (targets or labels) takes no gradient are
// not cases above: loss and first-bottom gradient on the GPU against the
// CPU, with a top diff of 2.  Bottom 1 is filled by `target(i)`.
struct LabelLossCase {
  const char* name;
  const char* prototxt;
  std::vector<int> shape;         // of bottom 0
  std::vector<int> target_shape;  // of bottom 1
  double (*target)(int i);
};

void PrintTo(const LabelLossCase& c, std::ostream* os) { *os << c.name; }

double SoftTarget(int i) { return i % 7 == 0 ? 1 : (i % 3) * 0.25; }
double ClassOf4(int i) { return (i * 3 + 1) % 4; }
double ClassOf4Or9(int i) { return i % 5 == 2 ? 9 : (i * 3 + 1) % 4; }

const LabelLossCase kLabelLossCases[] = {
    {"SigmoidCrossEntropyLoss", R"(type: "SigmoidCrossEntropyLoss"
       loss_param { ignore_label: 1 normalization: VALID })",
     {4, 6}, {4, 6}, SoftTarget},
    {"SoftmaxWithLossIgnoring", R"(type: "SoftmaxWithLoss"
       loss_param { ignore_label: 9 })",
     {3, 4, 2, 3}, {3, 1, 2, 3}, ClassOf4Or9},
    {"HingeLossL1", R"(type: "HingeLoss")", {5, 4}, {5}, ClassOf4},
    {"HingeLossL2", R"(type: "HingeLoss" hinge_loss_param { norm: L2 })",
     {5, 4}, {5}, ClassOf4},
    // MultinomialLogisticLoss takes probabilities: the scores below are
    // squashed to (0, 1) first (see LabelLossGpuTest).
    {"MultinomialLogisticLoss", R"(type: "MultinomialLogisticLoss")",
     {5, 4}, {5, 1, 1, 1}, ClassOf4},
    {"InfogainLossIgnoring", R"(type: "InfogainLoss"
       loss_param { ignore_label: 9 })",
     {3, 4, 2, 3}, {3, 1, 2, 3}, ClassOf4Or9},
};

class LabelLossGpuTest : public ::testing::TestWithParam<LabelLossCase> {};

TEST_P(LabelLossGpuTest, LossAndGradientMatchCpu) {
  SKIP_WITHOUT_GPU();
  const LabelLossCase& c = GetParam();
  LayerParameter param;
  CAFFE_CHECK(google::protobuf::TextFormat::ParseFromString(c.prototxt,
                                                            &param));
  param.set_name("l");
  const bool probabilities = param.type() == "MultinomialLogisticLoss";
  const bool infogain = param.type() == "InfogainLoss";
  std::vector<std::vector<double> > out;
  for (Caffe::Brew mode : {Caffe::CPU, Caffe::GPU}) {
    ModeScope scope(mode);
    Blob<double> x(c.shape), t(c.target_shape), h(std::vector<int>{4, 4});
    Blob<double> loss;
    for (int i = 0; i < x.count(); ++i) {
      const double v = 3 * std::sin(0.9 * i);
      x.mutable_cpu_data()[i] = probabilities ? 1 / (1 + std::exp(-v)) : v;
    }
    for (int i = 0; i < t.count(); ++i) t.mutable_cpu_data()[i] = c.target(i);
    for (int i = 0; i < h.count(); ++i)
      h.mutable_cpu_data()[i] = 0.5 + 0.5 * std::cos(1.3 * i);
    std::vector<Blob<double>*> b{&x, &t}, top{&loss};
    if (infogain) b.push_back(&h);
    std::shared_ptr<Layer<double> > layer =
        LayerRegistry<double>::CreateLayer(param);
    layer->SetUp(b, top);
    layer->Forward(b, top);
    loss.mutable_cpu_diff()[0] = 2;
    std::vector<bool> down(b.size(), false);
    down[0] = true;
    layer->Backward(top, down, b);
    std::vector<double> r(x.cpu_diff(), x.cpu_diff() + x.count());
    r.push_back(loss.cpu_data()[0]);
    out.push_back(r);
  }
  ASSERT_EQ(out[1].size(), out[0].size());
  EXPECT_NE(out[0].back(), 0) << "the loss should not vanish";
  for (size_t i = 0; i < out[0].size(); ++i)
    EXPECT_NEAR(out[1][i], out[0][i],
                1e-10 * std::max(1.0, std::fabs(out[0][i])))
        << "element " << i << " (the last is the loss)";
}

INSTANTIATE_TEST_SUITE_P(Losses, LabelLossGpuTest,
                         ::testing::ValuesIn(kLabelLossCases),
                         [](const ::testing::TestParamInfo<LabelLossCase>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace caffe
