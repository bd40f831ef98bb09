// block_net_util.hpp: a residual net of Convolution -> BatchNorm -> Scale
// -> ReLU blocks, in place, for the recomputation tests (CHEAP, nested).
//
// Contract: BlockNet(blocks, dropout_every) is a TRAIN-phase NetParameter
// with DummyData input (4 images of 8 x 12 x 12, labels 0..3), `blocks`
// blocks, an Eltwise sum of the block's input and output every second
// block, and, when dropout_every > 0, an in-place Dropout (ratio 0.2)
// after the ReLU of every dropout_every-th block; then global average
// pooling, an InnerProduct and a SoftmaxWithLoss.  Block b's convolution
// is "c<b>", its chain "bnc<b>", "scc<b>", "reluc<b>", "dropc<b>".
#ifndef CAFFE_TEST_BLOCK_NET_UTIL_HPP_
#define CAFFE_TEST_BLOCK_NET_UTIL_HPP_

#include <string>

#include "caffe/proto/caffe.pb.h"
#include "caffe/util/io.hpp"

namespace caffe {

inline NetParameter BlockNet(int blocks, int dropout_every = 0) {
  std::string text = R"(
name: "blocks"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param {
    shape { dim: 4 dim: 8 dim: 12 dim: 12 } shape { dim: 4 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "uniform" min: 0 max: 3.9 } } }
)";
  std::string in = "data";
  for (int b = 0; b < blocks; ++b) {
    const std::string c = "c" + std::to_string(b);
    text += "layer { name: '" + c + "' type: 'Convolution' bottom: '" + in +
            "' top: '" + c +
            "' convolution_param { num_output: 8 "
            "kernel_size: 3 pad: 1 weight_filler { type: 'gaussian' "
            "std: 0.2 } } }\n"
            "layer { name: 'bn" +
            c + "' type: 'BatchNorm' bottom: '" + c + "' top: '" + c +
            "' }\n"
            "layer { name: 'sc" +
            c + "' type: 'Scale' bottom: '" + c + "' top: '" + c +
            "' scale_param { bias_term: true } }\n"
            "layer { name: 'relu" +
            c + "' type: 'ReLU' bottom: '" + c + "' top: '" + c + "' }\n";
    if (dropout_every > 0 && b % dropout_every == dropout_every - 1)
      text += "layer { name: 'drop" + c + "' type: 'Dropout' bottom: '" + c +
              "' top: '" + c + "' dropout_param { dropout_ratio: 0.2 } }\n";
    if (b % 2 == 1) {
      const std::string sum = "sum" + std::to_string(b);
      text += "layer { name: '" + sum + "' type: 'Eltwise' bottom: '" + in +
              "' bottom: '" + c + "' top: '" + sum + "' }\n";
      in = sum;
    } else {
      in = c;
    }
  }
  text +=
      "layer { name: 'pool' type: 'Pooling' bottom: '" + in +
      "' top: 'pool' pooling_param { pool: AVE global_pooling: true } }\n"
      "layer { name: 'ip' type: 'InnerProduct' bottom: 'pool' top: 'ip' "
      "inner_product_param { num_output: 4 weight_filler { "
      "type: 'gaussian' std: 0.5 } } }\n"
      "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' "
      "bottom: 'label' top: 'loss' }\n";
  NetParameter param;
  ReadProtoFromTextString(text, "block net", &param);
  param.mutable_state()->set_phase(TRAIN);
  return param;
}

}  // namespace caffe

#endif  // CAFFE_TEST_BLOCK_NET_UTIL_HPP_
