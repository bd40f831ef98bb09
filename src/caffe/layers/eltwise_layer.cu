// Eltwise on the GPU: the launches of the SUM bodies (util/elementwise.hpp)
// and the MAX bodies (eltwise_kernels.hpp) that eltwise_layer.cpp makes
// through ForEachOn; PROD runs on device math.
#include "caffe/util/device_launch.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "eltwise_kernels.hpp"

namespace caffe {

INSTANTIATE_GPU_BODY(ScaledSumOfTwo<float>);
INSTANTIATE_GPU_BODY(ScaledSumOfTwo<double>);
INSTANTIATE_GPU_BODY(AddScaled<float>);
INSTANTIATE_GPU_BODY(AddScaled<double>);
INSTANTIATE_GPU_BODY(EltwiseMaxOfTwo<float>);
INSTANTIATE_GPU_BODY(EltwiseMaxOfTwo<double>);
INSTANTIATE_GPU_BODY(EltwiseMaxNext<float>);
INSTANTIATE_GPU_BODY(EltwiseMaxNext<double>);
INSTANTIATE_GPU_BODY(EltwiseMaxBackward<float>);
INSTANTIATE_GPU_BODY(EltwiseMaxBackward<double>);

}  // namespace caffe
