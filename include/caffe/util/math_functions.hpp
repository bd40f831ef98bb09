// math_functions.hpp: the dense CPU kernels layers are written in.
//
// Contract: thin, typed wrappers over CBLAS (OpenBLAS) for float and double,
// plus element-wise loops and random fills.  Row-major everywhere.  Random
// fills draw from Caffe::rng(), so a fixed random_seed reproduces them.
#ifndef CAFFE_UTIL_MATH_FUNCTIONS_HPP_
#define CAFFE_UTIL_MATH_FUNCTIONS_HPP_

#include <cblas.h>

#include <cmath>
#include <cstring>

#include "caffe/common.hpp"

namespace caffe {

// C = alpha * op(A) * op(B) + beta * C, with op(A) M x K and op(B) K x N.
template <typename Dtype>
void caffe_cpu_gemm(const CBLAS_TRANSPOSE TransA, const CBLAS_TRANSPOSE TransB,
                    const int M, const int N, const int K, const Dtype alpha,
                    const Dtype* A, const Dtype* B, const Dtype beta, Dtype* C);

// y = alpha * op(A) * x + beta * y, with A M x N.
template <typename Dtype>
void caffe_cpu_gemv(const CBLAS_TRANSPOSE TransA, const int M, const int N,
                    const Dtype alpha, const Dtype* A, const Dtype* x,
                    const Dtype beta, Dtype* y);

template <typename Dtype>
void caffe_axpy(const int N, const Dtype alpha, const Dtype* X, Dtype* Y);

// Y = alpha * X + beta * Y
template <typename Dtype>
void caffe_cpu_axpby(const int N, const Dtype alpha, const Dtype* X,
                     const Dtype beta, Dtype* Y);

template <typename Dtype>
void caffe_copy(const int N, const Dtype* X, Dtype* Y) {
  if (X != Y && N > 0) std::memcpy(Y, X, sizeof(Dtype) * N);
}

template <typename Dtype>
void caffe_set(const int N, const Dtype alpha, Dtype* X) {
  if (alpha == Dtype(0)) {
    std::memset(X, 0, sizeof(Dtype) * N);
    return;
  }
  for (int i = 0; i < N; ++i) X[i] = alpha;
}

template <typename Dtype>
void caffe_add_scalar(const int N, const Dtype alpha, Dtype* X);

template <typename Dtype>
void caffe_scal(const int N, const Dtype alpha, Dtype* X);

template <typename Dtype>
void caffe_sqr(const int N, const Dtype* a, Dtype* y);
template <typename Dtype>
void caffe_sqrt(const int N, const Dtype* a, Dtype* y);
template <typename Dtype>
void caffe_add(const int N, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void caffe_sub(const int N, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void caffe_mul(const int N, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void caffe_div(const int N, const Dtype* a, const Dtype* b, Dtype* y);
template <typename Dtype>
void caffe_powx(const int n, const Dtype* a, const Dtype b, Dtype* y);
template <typename Dtype>
void caffe_exp(const int n, const Dtype* a, Dtype* y);
template <typename Dtype>
void caffe_log(const int n, const Dtype* a, Dtype* y);
template <typename Dtype>
void caffe_abs(const int n, const Dtype* a, Dtype* y);
// y = alpha * x
template <typename Dtype>
void caffe_cpu_scale(const int n, const Dtype alpha, const Dtype* x, Dtype* y);

template <typename Dtype>
Dtype caffe_cpu_dot(const int n, const Dtype* x, const Dtype* y);
template <typename Dtype>
Dtype caffe_cpu_strided_dot(const int n, const Dtype* x, const int incx,
                            const Dtype* y, const int incy);
template <typename Dtype>
Dtype caffe_cpu_asum(const int n, const Dtype* x);

template <typename Dtype>
void caffe_cpu_sign(const int n, const Dtype* x, Dtype* y) {
  for (int i = 0; i < n; ++i)
    y[i] = static_cast<Dtype>((Dtype(0) < x[i]) - (x[i] < Dtype(0)));
}

// Uniform in [a, b).
template <typename Dtype>
void caffe_rng_uniform(const int n, const Dtype a, const Dtype b, Dtype* r);
template <typename Dtype>
void caffe_rng_gaussian(const int n, const Dtype mu, const Dtype sigma,
                        Dtype* r);
// r[i] = 1 with probability p, else 0.
template <typename Dtype>
void caffe_rng_bernoulli(const int n, const Dtype p, int* r);
template <typename Dtype>
void caffe_rng_bernoulli(const int n, const Dtype p, unsigned int* r);

// The next representable value above b (for half-open ranges).
template <typename Dtype>
Dtype caffe_nextafter(const Dtype b);

}  // namespace caffe

#endif  // CAFFE_UTIL_MATH_FUNCTIONS_HPP_
