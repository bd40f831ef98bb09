// LSTMUnit on the GPU: the bodies of lstm_unit_compute.hpp with GpuLaunch.
#include "lstm_unit_compute.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

DEFINE_GPU_BY_LAUNCH_POLICY(LSTMUnitLayer);

}  // namespace caffe
