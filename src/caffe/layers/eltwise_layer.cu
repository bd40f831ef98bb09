// Eltwise on the GPU: the launches of the MAX bodies (eltwise_kernels.hpp)
// that eltwise_layer.cpp makes through ForEachOn; SUM and PROD run on
// device math.
#include "caffe/util/device_launch.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "eltwise_kernels.hpp"

namespace caffe {

INSTANTIATE_GPU_BODY(EltwiseMaxOfTwo<float>);
INSTANTIATE_GPU_BODY(EltwiseMaxOfTwo<double>);
INSTANTIATE_GPU_BODY(EltwiseMaxNext<float>);
INSTANTIATE_GPU_BODY(EltwiseMaxNext<double>);
INSTANTIATE_GPU_BODY(EltwiseMaxBackward<float>);
INSTANTIATE_GPU_BODY(EltwiseMaxBackward<double>);

}  // namespace caffe
