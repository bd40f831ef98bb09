// Reduction on the GPU: the launches of the bodies (reduction_kernels.hpp)
// that reduction_layer.cpp makes through ForEachOn.
#include "caffe/util/device_launch.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "reduction_kernels.hpp"

namespace caffe {

INSTANTIATE_GPU_BODY(ReductionForward<float>);
INSTANTIATE_GPU_BODY(ReductionForward<double>);
INSTANTIATE_GPU_BODY(ReductionBackward<float>);
INSTANTIATE_GPU_BODY(ReductionBackward<double>);

}  // namespace caffe
