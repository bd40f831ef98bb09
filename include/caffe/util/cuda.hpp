// cuda.hpp: the CUDA side of the device seam (only in a USE_CUDA build).
//
// Contract:
//  * CUDA_CHECK / CUBLAS_CHECK wrap a runtime or cuBLAS call and throw
//    caffe::Error naming the call, the error and the device when it fails:
//    a missing or busy GPU is something a user causes, so it is a value with
//    context, never an abort that kills a Python or Octave host.
//  * GpuCount(&why) is the number of usable CUDA devices; when it is 0,
//    `why` says why ("no CUDA driver or GPU: cudaGetDeviceCount returned
//    error 35 ...").  The GPU tests skip with that reason.
//  * CublasHandle() is the calling thread's cuBLAS handle on the current
//    device, created on first use (pointer mode host, default stream).
//  * Kernels run on the default (legacy) stream, so a device-to-host copy
//    after them sees their results; CUDA_POST_LAUNCH_CHECK reports a launch
//    failure where it happened rather than at the next copy.
#ifndef CAFFE_UTIL_CUDA_HPP_
#define CAFFE_UTIL_CUDA_HPP_

#ifdef USE_CUDA

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "caffe/common.hpp"

namespace caffe {

// "cudaMalloc(...) failed: out of memory (error 2) on GPU 0".
std::string CudaErrorMessage(const char* call, cudaError_t error);
std::string CublasErrorMessage(const char* call, cublasStatus_t status);

#define CUDA_CHECK(call)                                              \
  do {                                                                \
    const cudaError_t cuda_check_error_ = (call);                     \
    if (cuda_check_error_ != cudaSuccess)                             \
      throw ::caffe::Error(                                           \
          ::caffe::CudaErrorMessage(#call, cuda_check_error_));       \
  } while (0)

#define CUBLAS_CHECK(call)                                            \
  do {                                                                \
    const cublasStatus_t cublas_check_status_ = (call);               \
    if (cublas_check_status_ != CUBLAS_STATUS_SUCCESS)                \
      throw ::caffe::Error(                                           \
          ::caffe::CublasErrorMessage(#call, cublas_check_status_));  \
  } while (0)

#define CUDA_POST_LAUNCH_CHECK(what) CUDA_CHECK(cudaPeekAtLastError())

int GpuCount(std::string* why);
// The current device (cudaGetDevice); where there is none, caffe::Error
// "<library> needs a GPU: <why>".  The handles call it on every use, so
// the device count is asked only when this fails.
int CurrentDevice(const char* library);
// Whether the current device launches thread-block clusters (sm_90 and
// later), which channel sums shared by several blocks need.
bool GpuHasClusters();
cublasHandle_t CublasHandle();

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDA_HPP_
