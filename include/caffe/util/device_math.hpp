// device_math.hpp: GEMM-based layer code written once for both devices.
//
// Contract: each function takes `gpu` and runs on the GPU (device
// pointers, cuBLAS) when it is true, else on the CPU (host pointers, the
// CPU BLAS), so a layer's Forward_cpu and Forward_gpu call one body with
// false and true.  In a CPU-only build gpu == true throws caffe::Error.
// The accessors move a blob's current value to that device (SyncedMemory).
// Element counts are long: the CPU routines, which take int, run over
// larger ranges in pieces (util/int_pieces.hpp), one call when n fits.
#ifndef CAFFE_UTIL_DEVICE_MATH_HPP_
#define CAFFE_UTIL_DEVICE_MATH_HPP_

#include "caffe/blob.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/int_pieces.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
const Dtype* DataOn(bool gpu, const Blob<Dtype>& b) {
  return gpu ? b.gpu_data() : b.cpu_data();
}
template <typename Dtype>
const Dtype* DiffOn(bool gpu, const Blob<Dtype>& b) {
  return gpu ? b.gpu_diff() : b.cpu_diff();
}
template <typename Dtype>
Dtype* MutableDataOn(bool gpu, Blob<Dtype>* b) {
  return gpu ? b->mutable_gpu_data() : b->mutable_cpu_data();
}
template <typename Dtype>
Dtype* MutableDiffOn(bool gpu, Blob<Dtype>* b) {
  return gpu ? b->mutable_gpu_diff() : b->mutable_cpu_diff();
}

template <typename Dtype>
void GemmOn(bool gpu, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n,
            int k, Dtype alpha, const Dtype* a, const Dtype* b, Dtype beta,
            Dtype* c) {
#ifdef USE_CUDA
  if (gpu) return caffe_gpu_gemm<Dtype>(ta, tb, m, n, k, alpha, a, b, beta, c);
#else
  if (gpu) NO_GPU;
#endif
  caffe_cpu_gemm<Dtype>(ta, tb, m, n, k, alpha, a, b, beta, c);
}

template <typename Dtype>
void GemvOn(bool gpu, CBLAS_TRANSPOSE ta, int m, int n, Dtype alpha,
            const Dtype* a, const Dtype* x, Dtype beta, Dtype* y) {
#ifdef USE_CUDA
  if (gpu) return caffe_gpu_gemv<Dtype>(ta, m, n, alpha, a, x, beta, y);
#else
  if (gpu) NO_GPU;
#endif
  caffe_cpu_gemv<Dtype>(ta, m, n, alpha, a, x, beta, y);
}

#ifdef USE_CUDA
#define CAFFE_ON_DEVICE_(gpu, gpu_call, cpu_call) \
  do {                                            \
    if (gpu) {                                    \
      gpu_call;                                   \
    } else {                                      \
      cpu_call;                                   \
    }                                             \
  } while (0)
#else
#define CAFFE_ON_DEVICE_(gpu, gpu_call, cpu_call) \
  do {                                            \
    if (gpu) NO_GPU;                              \
    cpu_call;                                     \
  } while (0)
#endif

// y = x
template <typename Dtype>
void CopyOn(bool gpu, long n, const Dtype* x, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_copy_bytes(sizeof(Dtype) * n, x, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_copy(len, x + o, y + o);
                   }));
}
// y = value
template <typename Dtype>
void SetOn(bool gpu, long n, Dtype value, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_set<Dtype>(n, value, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_set(len, value, y + o);
                   }));
}
// y += a * x
template <typename Dtype>
void AxpyOn(bool gpu, long n, Dtype a, const Dtype* x, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, caffe_gpu_axpy<Dtype>(n, a, x, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_axpy(len, a, x + o, y + o);
                   }));
}
// y *= a
template <typename Dtype>
void ScalOn(bool gpu, long n, Dtype a, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, caffe_gpu_scal<Dtype>(n, a, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_scal(len, a, y + o);
                   }));
}
// y = a * x
template <typename Dtype>
void ScaleOn(bool gpu, long n, Dtype a, const Dtype* x, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_scale<Dtype>(n, a, x, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_cpu_scale(len, a, x + o, y + o);
                   }));
}
// y = a * b, a / b (element-wise)
template <typename Dtype>
void MulOn(bool gpu, long n, const Dtype* a, const Dtype* b, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_mul<Dtype>(n, a, b, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_mul(len, a + o, b + o, y + o);
                   }));
}
template <typename Dtype>
void DivOn(bool gpu, long n, const Dtype* a, const Dtype* b, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_div<Dtype>(n, a, b, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_div(len, a + o, b + o, y + o);
                   }));
}

// y = a * x + b * y
template <typename Dtype>
void AxpbyOn(bool gpu, long n, Dtype a, const Dtype* x, Dtype b, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_axpby<Dtype>(n, a, x, b, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_cpu_axpby(len, a, x + o, b, y + o);
                   }));
}
// y = sign(x), y = x ^ p
template <typename Dtype>
void SignOn(bool gpu, long n, const Dtype* x, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_sign<Dtype>(n, x, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_cpu_sign(len, x + o, y + o);
                   }));
}
template <typename Dtype>
void PowxOn(bool gpu, long n, const Dtype* x, Dtype p, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_powx<Dtype>(n, x, p, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_powx(len, x + o, p, y + o);
                   }));
}
// y = a + b (element-wise); y += a
template <typename Dtype>
void AddOn(bool gpu, long n, const Dtype* a, const Dtype* b, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_add<Dtype>(n, a, b, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_add(len, a + o, b + o, y + o);
                   }));
}
// y = a - b (element-wise)
template <typename Dtype>
void SubOn(bool gpu, long n, const Dtype* a, const Dtype* b, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_sub<Dtype>(n, a, b, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_sub(len, a + o, b + o, y + o);
                   }));
}
template <typename Dtype>
void AddScalarOn(bool gpu, long n, Dtype a, Dtype* y) {
  CAFFE_ON_DEVICE_(gpu, gpu_add_scalar<Dtype>(n, a, y),
                   ForIntPieces(n, [&](int64_t o, int len) {
                     caffe_add_scalar(len, a, y + o);
                   }));
}
// sum of x * y
template <typename Dtype>
Dtype DotOn(bool gpu, long n, const Dtype* x, const Dtype* y) {
#ifdef USE_CUDA
  if (gpu) return caffe_gpu_dot<Dtype>(n, x, y);
#else
  if (gpu) NO_GPU;
#endif
  return caffe_cpu_dot(static_cast<int>(n), x, y);
}

}  // namespace caffe

#endif  // CAFFE_UTIL_DEVICE_MATH_HPP_
