#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/elu_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "elu_compute.hpp"

namespace caffe {

DEFINE_CPU_BY_LAUNCH_POLICY(ELULayer);

INSTANTIATE_CLASS(ELULayer);
REGISTER_LAYER_CLASS(ELU);

}  // namespace caffe
