// expensive_layers.hpp: which layers recompute { auto: CHEAP } keeps, and
// the prototxt rewrite that lets it keep them.
//
// Contract:
//  * IsExpensiveLayerType: the layer types whose forward multiplies by a
//    weight matrix (Convolution, Deconvolution, InnerProduct, RNN, LSTM).
//    Every other type does a few operations per output element (element-
//    wise, per-channel, pooling, concatenation, normalization over a small
//    window) and is "cheap": rerunning it costs little next to the
//    matrix products around it.  This is the threshold auto: CHEAP uses.
//  * KeepExpensiveOutputs: where an expensive layer's top is next used by
//    a layer running in place on it (Convolution -> BatchNorm -> Scale ->
//    ReLU on one blob), the expensive layer writes a blob of its own
//    instead, named "<top>/<layer>" (made unique), and that first in-place
//    layer reads it and writes the original top; the rest of the chain
//    stays in place.  Every other reader sees the values it saw before,
//    under the names it used.  So the expensive output survives the chain
//    and the cheap layers can be recomputed from it.  Returns how many
//    tops it renamed.
#ifndef CAFFE_UTIL_EXPENSIVE_LAYERS_HPP_
#define CAFFE_UTIL_EXPENSIVE_LAYERS_HPP_

#include <string>

#include "caffe/proto/caffe.pb.h"

namespace caffe {

bool IsExpensiveLayerType(const std::string& type);
int KeepExpensiveOutputs(NetParameter* param);

}  // namespace caffe

#endif  // CAFFE_UTIL_EXPENSIVE_LAYERS_HPP_
