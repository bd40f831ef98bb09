// chain_nets.hpp: a small net with every kind of fused step
// (fused_steps.hpp) -- in-place BatchNorm -> Scale -> ReLU chains of two
// and three members, one that BatchNorm starts out of place, a leaky
// ReLU, an Eltwise SUM -> ReLU -- for the fused steps' CPU tests
// (test_fused_chain.cpp) and GPU tests (test_gpu_nets.cpp).
#ifndef CAFFE_TEST_CHAIN_NETS_HPP_
#define CAFFE_TEST_CHAIN_NETS_HPP_

#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/util/io.hpp"

namespace caffe {

// conv -> [bn, scale, relu] -> conv -> [bn, scale] -> eltwise with the
// first branch -> relu (alone) -> [bn, relu] -> [scale, leaky relu] ->
// conv -> [bn out of place, scale, relu] -> pooling -> ip -> loss; `side`
// is the spatial size of the planes.
inline NetParameter ChainNet(int side) {
  const std::string s = std::to_string(side);
  const std::string text = R"(
name: "chains"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param {
    shape { dim: 4 dim: 3 dim: )" + s + " dim: " + s + R"( }
    shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "uniform" min: 0 max: 3.9 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "sc1" type: "Scale" bottom: "conv1" top: "conv1"
  scale_param { bias_term: true filler { type: "uniform" min: 0.5 max: 1.5 }
    bias_filler { type: "uniform" min: -0.2 max: 0.2 } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2"
  convolution_param { num_output: 6 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn2" type: "BatchNorm" bottom: "conv2" top: "conv2" }
layer { name: "sc2" type: "Scale" bottom: "conv2" top: "conv2"
  scale_param { bias_term: true } }
layer { name: "add" type: "Eltwise" bottom: "conv1" bottom: "conv2"
  top: "add" }
layer { name: "relu2" type: "ReLU" bottom: "add" top: "add" }
layer { name: "bn3" type: "BatchNorm" bottom: "add" top: "add" }
layer { name: "relu3" type: "ReLU" bottom: "add" top: "add" }
layer { name: "sc4" type: "Scale" bottom: "add" top: "add"
  scale_param { filler { type: "uniform" min: -1 max: 1 } } }
layer { name: "relu4" type: "ReLU" bottom: "add" top: "add"
  relu_param { negative_slope: 0.1 } }
layer { name: "conv3" type: "Convolution" bottom: "add" top: "conv3"
  convolution_param { num_output: 5 kernel_size: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn5" type: "BatchNorm" bottom: "conv3" top: "bn5" }
layer { name: "sc5" type: "Scale" bottom: "bn5" top: "bn5"
  scale_param { bias_term: true filler { type: "uniform" min: 0.5 max: 1.5 }
    bias_filler { type: "uniform" min: -0.2 max: 0.2 } } }
layer { name: "relu5" type: "ReLU" bottom: "bn5" top: "bn5" }
layer { name: "pool" type: "Pooling" bottom: "bn5" top: "pool"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "ip" type: "InnerProduct" bottom: "pool" top: "ip"
  inner_product_param { num_output: 4
    weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
  top: "loss" }
)";
  NetParameter param;
  ReadProtoFromTextString(text, "chain net", &param);
  return param;
}

// ChainNet with one layer's text replaced, for variants of the chains.
inline NetParameter ChainNetWith(int side, const std::string& from,
                          const std::string& to) {
  NetParameter param = ChainNet(side);
  std::string text;
  google::protobuf::TextFormat::PrintToString(param, &text);
  const size_t at = text.find(from);
  CAFFE_CHECK(at != std::string::npos) << from;
  text.replace(at, from.size(), to);
  ReadProtoFromTextString(text, "chain net variant", &param);
  return param;
}

// ChainNet in variants that take other paths through the fused steps:
// the Scale without its bias, BatchNorm with global statistics in
// training (the Scale then keeps its own copy, BatchNorm takes no sums),
// a leaky ReLU in a chain, a frozen Scale (no parameter gradients), and
// the fused Eltwise SUM -> ReLU with a leaky slope and with coefficients.
inline std::vector<NetParameter> ChainNetVariants(int side) {
  return {
      ChainNetWith(side, "bias_term: true", "bias_term: false"),  // sc1
      ChainNetWith(side, "name: \"bn1\"\n  type: \"BatchNorm\"",
                   "name: \"bn1\"\n  type: \"BatchNorm\"\n"
                   "  batch_norm_param { use_global_stats: true }"),
      ChainNetWith(side, "name: \"relu1\"\n  type: \"ReLU\"",
                   "name: \"relu1\"\n  type: \"ReLU\"\n"
                   "  relu_param { negative_slope: 0.25 }"),
      ChainNetWith(side, "name: \"sc1\"\n  type: \"Scale\"",
                   "name: \"sc1\"\n  type: \"Scale\"\n"
                   "  param { lr_mult: 0 } param { lr_mult: 0 }"),
      ChainNetWith(side, "name: \"relu2\"\n  type: \"ReLU\"",
                   "name: \"relu2\"\n  type: \"ReLU\"\n"
                   "  relu_param { negative_slope: 0.125 }\n"),
      ChainNetWith(side, "name: \"add\"\n  type: \"Eltwise\"",
                   "name: \"add\"\n  type: \"Eltwise\"\n"
                   "  eltwise_param { coeff: 0.5 coeff: -1.5 }"),
  };
}

}  // namespace caffe

#endif  // CAFFE_TEST_CHAIN_NETS_HPP_
