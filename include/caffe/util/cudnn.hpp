// cudnn.hpp: cuDNN's error check and handle (USE_CUDA builds only).
//
// CUDNN_CHECK throws caffe::Error naming the call and cuDNN's message.
// CudnnHandle() is the calling thread's handle on the current device,
// created on first use; without a GPU cudnnCreate fails and this throws,
// while descriptor calls (which need no handle) still work -- the tests
// of descriptor code rely on that.  CudnnType<Dtype>::value is the data
// type descriptors take.
#ifndef CAFFE_UTIL_CUDNN_HPP_
#define CAFFE_UTIL_CUDNN_HPP_

#ifdef USE_CUDA

#include <cudnn.h>

#include <string>

#include "caffe/common.hpp"

namespace caffe {

std::string CudnnErrorMessage(const char* call, cudnnStatus_t status);

#define CUDNN_CHECK(call)                                             \
  do {                                                                \
    const cudnnStatus_t cudnn_check_status_ = (call);                 \
    if (cudnn_check_status_ != CUDNN_STATUS_SUCCESS)                  \
      throw ::caffe::Error(                                           \
          ::caffe::CudnnErrorMessage(#call, cudnn_check_status_));    \
  } while (0)

cudnnHandle_t CudnnHandle();

// cuDNN's name for the element type of Caffe's Blob<Dtype>.
template <typename Dtype> struct CudnnType;
template <> struct CudnnType<float> {
  static constexpr cudnnDataType_t value = CUDNN_DATA_FLOAT;
};
template <> struct CudnnType<double> {
  static constexpr cudnnDataType_t value = CUDNN_DATA_DOUBLE;
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_HPP_
