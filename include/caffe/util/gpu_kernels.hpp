// gpu_kernels.hpp: host-callable GPU math (USE_CUDA builds only): the
// element-wise kernels behind blob_math's GPU branch (math_functions.cu)
// and the cuBLAS wrappers (math_functions_gpu.cpp).
//
// Contract: every pointer is device memory of the current GPU; n counts
// elements (64-bit).  Matrices are row-major as in caffe_cpu_gemm: the
// wrappers swap operands so cuBLAS's column-major view computes the same
// product.  Results are deterministic for a given device and size (no
// atomics), which the GPU bit-identity tests rely on.  Failures throw
// caffe::Error (util/cuda.hpp).
#ifndef CAFFE_UTIL_GPU_KERNELS_HPP_
#define CAFFE_UTIL_GPU_KERNELS_HPP_

#ifdef USE_CUDA

#include <cblas.h>

#include <cstddef>

namespace caffe {

template <typename Dtype> void gpu_fill_nan(Dtype* y, size_t n);
template <typename Dtype> void gpu_set(long n, Dtype value, Dtype* y);
template <typename Dtype> void gpu_add_scalar(long n, Dtype a, Dtype* y);
// y = a * x
template <typename Dtype>
void gpu_scale(long n, Dtype a, const Dtype* x, Dtype* y);
// y = a * x + b * y
template <typename Dtype>
void gpu_axpby(long n, Dtype a, const Dtype* x, Dtype b, Dtype* y);
template <typename Dtype> void gpu_sign(long n, const Dtype* x, Dtype* y);
template <typename Dtype>
void gpu_powx(long n, const Dtype* x, Dtype p, Dtype* y);
template <typename Dtype>
void gpu_add(long n, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void gpu_sub(long n, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void gpu_mul(long n, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void gpu_div(long n, const Dtype* a, const Dtype* b, Dtype* y);
void gpu_copy_bytes(size_t bytes, const void* x, void* y);

// Convolution (im2col.cu, bodies in im2col_kernels.hpp).
struct ConvGeometry;
template <typename Dtype>
void im2col_gpu(const Dtype* im, const ConvGeometry& g, Dtype* col);
template <typename Dtype>
void col2im_gpu(const Dtype* col, const ConvGeometry& g, Dtype* im);
struct ConvGeometryNd;
template <typename Dtype>
void im2col_nd_gpu(const Dtype* im, const ConvGeometryNd& g, Dtype* col);
template <typename Dtype>
void col2im_nd_gpu(const Dtype* col, const ConvGeometryNd& g, Dtype* im);
// y[(n, c, i)] += bias[c] over an (outer, channels, inner) tensor.
template <typename Dtype>
void gpu_channel_bias_add(long outer, int channels, long inner,
                          const Dtype* bias, Dtype* y);
// acc[c] += sum over (n, i) of x[(n, c, i)].
template <typename Dtype>
void gpu_channel_sum(int outer, int channels, int inner, const Dtype* x,
                     Dtype* acc);

// The calling thread's device scratch (the GPU twin of SharedWorkspace):
// grown, never shrunk, to at least bytes; contents are garbage.  Layers
// use it only within one Forward or Backward (im2col columns).
void* SharedDeviceWorkspace(size_t bytes);
size_t SharedDeviceWorkspaceBytes();

// cuBLAS.
template <typename Dtype>
void caffe_gpu_gemm(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int m,
                    int n, int k, Dtype alpha, const Dtype* a, const Dtype* b,
                    Dtype beta, Dtype* c);
template <typename Dtype>
void caffe_gpu_gemv(CBLAS_TRANSPOSE trans_a, int m, int n, Dtype alpha,
                    const Dtype* a, const Dtype* x, Dtype beta, Dtype* y);
template <typename Dtype>
void caffe_gpu_axpy(long n, Dtype alpha, const Dtype* x, Dtype* y);
template <typename Dtype> void caffe_gpu_scal(long n, Dtype alpha, Dtype* x);
template <typename Dtype>
Dtype caffe_gpu_dot(long n, const Dtype* x, const Dtype* y);
template <typename Dtype> Dtype caffe_gpu_asum(long n, const Dtype* x);

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_GPU_KERNELS_HPP_
