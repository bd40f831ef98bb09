// mem_layer_nets.hpp: small TRAIN nets that use the layers models/ does
// not (recurrent, Embed and friends, SPP and the extra losses, Crop,
// Filter, Silence, master's Clip and Swish), so that
// every layer's memory declarations go through the optimizer's tests.
#ifndef CAFFE_TEST_MEM_LAYER_NETS_HPP_
#define CAFFE_TEST_MEM_LAYER_NETS_HPP_

#include "caffe/caffe.hpp"

namespace caffe {

const char* const kMemLayerNets[][2] = {
    {"recurrent", R"(
layer { name: "d" type: "DummyData" top: "x" top: "cont" top: "t"
  dummy_data_param { shape { dim: 3 dim: 2 dim: 4 } shape { dim: 3 dim: 2 }
    shape { dim: 3 dim: 2 dim: 3 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 1 }
    data_filler { type: "gaussian" std: 1 } } }
layer { name: "lstm" type: "LSTM" bottom: "x" bottom: "cont" top: "h"
  recurrent_param { num_output: 5 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "rnn" type: "RNN" bottom: "x" bottom: "cont" top: "g"
  recurrent_param { num_output: 5 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "cat" type: "Concat" bottom: "h" bottom: "g" top: "hg" concat_param { axis: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "hg" top: "p"
  inner_product_param { num_output: 3 axis: 2 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "loss" type: "EuclideanLoss" bottom: "p" bottom: "t" top: "loss" }
)"},
    {"embed_and_friends", R"(
layer { name: "d" type: "DummyData" top: "idx" top: "label" top: "sel"
  dummy_data_param { shape { dim: 4 } shape { dim: 4 } shape { dim: 4 }
    data_filler { type: "constant" value: 3 } data_filler { type: "constant" value: 1 }
    data_filler { type: "constant" value: 2 } } }
layer { name: "embed" type: "Embed" bottom: "idx" top: "e"
  embed_param { num_output: 6 input_dim: 5 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "reindex" type: "BatchReindex" bottom: "e" bottom: "sel" top: "r" }
layer { name: "tile" type: "Tile" bottom: "r" top: "t" tile_param { axis: 1 tiles: 2 } }
layer { name: "param" type: "Parameter" top: "w" parameter_param { shape { dim: 4 dim: 12 } } }
layer { name: "sum" type: "Eltwise" bottom: "t" bottom: "w" top: "s" }
layer { name: "mvn" type: "MVN" bottom: "s" top: "m" }
layer { name: "ip" type: "InnerProduct" bottom: "m" top: "p"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "hinge" type: "HingeLoss" bottom: "p" bottom: "label" top: "loss" }
)"},
    {"pyramid_and_losses", R"(
layer { name: "d" type: "DummyData" top: "x" top: "label" top: "sim"
  dummy_data_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } shape { dim: 2 }
    shape { dim: 2 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "c"
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "spp" type: "SPP" bottom: "c" top: "s" spp_param { pyramid_height: 2 } }
layer { name: "red" type: "Reduction" bottom: "c" top: "r"
  reduction_param { operation: SUMSQ axis: 1 } }
layer { name: "flat" type: "Flatten" bottom: "s" top: "f" }
layer { name: "ipa" type: "InnerProduct" bottom: "f" top: "a"
  inner_product_param { num_output: 4 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "ipb" type: "InnerProduct" bottom: "f" top: "b"
  inner_product_param { num_output: 4 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "contrastive" type: "ContrastiveLoss" bottom: "a" bottom: "b" bottom: "sim" top: "closs" }
layer { name: "prob" type: "Softmax" bottom: "a" top: "pa" }
layer { name: "mlog" type: "MultinomialLogisticLoss" bottom: "pa" bottom: "label" top: "mloss" }
layer { name: "rloss" type: "EuclideanLoss" bottom: "r" bottom: "r2" top: "rl" }
layer { name: "d2" type: "DummyData" top: "r2"
  dummy_data_param { shape { dim: 2 } data_filler { type: "constant" value: 0 } } }
)"},
    {"crops_and_master_neurons", R"(
layer { name: "d" type: "DummyData" top: "x" top: "ref" top: "sel" top: "t"
  top: "spare"
  dummy_data_param { shape { dim: 2 dim: 3 dim: 6 dim: 6 }
    shape { dim: 2 dim: 4 dim: 4 dim: 4 } shape { dim: 2 } shape { dim: 2 }
    shape { dim: 3 }
    data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 0 }
    data_filler { type: "constant" value: 1 } data_filler { type: "constant" value: 0.5 }
    data_filler { type: "constant" value: 0 } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "c"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "clip" type: "Clip" bottom: "c" top: "c" clip_param { min: -0.3 max: 0.4 } }
layer { name: "swish" type: "Swish" bottom: "c" top: "c" swish_param { beta: 1.5 } }
layer { name: "crop" type: "Crop" bottom: "c" bottom: "ref" top: "k"
  crop_param { axis: 2 offset: 1 } }
layer { name: "filter" type: "Filter" bottom: "k" bottom: "sel" top: "f" }
layer { name: "asum" type: "Reduction" bottom: "f" top: "r"
  reduction_param { operation: ASUM axis: 2 } }
layer { name: "mean" type: "Reduction" bottom: "f" top: "m"
  reduction_param { operation: MEAN axis: 1 } }
layer { name: "ip" type: "InnerProduct" bottom: "r" top: "p"
  inner_product_param { num_output: 2 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "quiet" type: "Silence" bottom: "spare" }
layer { name: "loss" type: "EuclideanLoss" bottom: "p" bottom: "ref2" top: "loss" }
layer { name: "mloss" type: "EuclideanLoss" bottom: "m" bottom: "t" top: "ml" }
layer { name: "d2" type: "DummyData" top: "ref2"
  dummy_data_param { shape { dim: 2 dim: 2 } data_filler { type: "constant" value: 0.2 } } }
)"},
};

const int kNumMemLayerNets =
    static_cast<int>(sizeof(kMemLayerNets) / sizeof(kMemLayerNets[0]));

// Net i of kMemLayerNets, named, in the TRAIN phase, without mem_param.
inline NetParameter MemLayerNet(int i) {
  const char* name = kMemLayerNets[i][0];
  NetParameter net;
  ReadProtoFromTextString(kMemLayerNets[i][1], name, &net);
  // The Euclidean target above is produced after its consumer: move the
  // producer first so the net is valid as Caffe requires.
  for (int l = net.layer_size() - 1; l > 0; --l) {
    if (net.layer(l).name() != "d2") continue;
    for (int j = l; j > 0; --j) net.mutable_layer()->SwapElements(j, j - 1);
  }
  net.set_name(name);
  net.mutable_state()->set_phase(TRAIN);
  return net;
}

}  // namespace caffe

#endif  // CAFFE_TEST_MEM_LAYER_NETS_HPP_
