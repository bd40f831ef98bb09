#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layers/bnll_layer.hpp"
#include "caffe/util/elementwise.hpp"
#include "bnll_compute.hpp"

namespace caffe {

DEFINE_CPU_BY_LAUNCH_POLICY(BNLLLayer);

INSTANTIATE_CLASS(BNLLLayer);
REGISTER_LAYER_CLASS(BNLL);

}  // namespace caffe
