// Crop on the GPU: the launches of the row body (crop_kernels.hpp) that
// crop_layer.cpp makes through ForEachOn.
#include "caffe/util/device_launch.hpp"
#include "caffe/util/gpu_launch.cuh"
#include "crop_kernels.hpp"

namespace caffe {

INSTANTIATE_GPU_BODY(CropRows<float>);
INSTANTIATE_GPU_BODY(CropRows<double>);

}  // namespace caffe
