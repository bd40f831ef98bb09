#include "caffe/util/math_functions.hpp"

#include <limits>
#include <random>

namespace caffe {

template <>
void caffe_cpu_gemm<float>(const CBLAS_TRANSPOSE TransA,
                           const CBLAS_TRANSPOSE TransB, const int M,
                           const int N, const int K, const float alpha,
                           const float* A, const float* B, const float beta,
                           float* C) {
  int lda = (TransA == CblasNoTrans) ? K : M;
  int ldb = (TransB == CblasNoTrans) ? N : K;
  cblas_sgemm(CblasRowMajor, TransA, TransB, M, N, K, alpha, A, lda, B, ldb,
              beta, C, N);
}

template <>
void caffe_cpu_gemm<double>(const CBLAS_TRANSPOSE TransA,
                            const CBLAS_TRANSPOSE TransB, const int M,
                            const int N, const int K, const double alpha,
                            const double* A, const double* B, const double beta,
                            double* C) {
  int lda = (TransA == CblasNoTrans) ? K : M;
  int ldb = (TransB == CblasNoTrans) ? N : K;
  cblas_dgemm(CblasRowMajor, TransA, TransB, M, N, K, alpha, A, lda, B, ldb,
              beta, C, N);
}

template <>
void caffe_cpu_gemv<float>(const CBLAS_TRANSPOSE TransA, const int M,
                           const int N, const float alpha, const float* A,
                           const float* x, const float beta, float* y) {
  cblas_sgemv(CblasRowMajor, TransA, M, N, alpha, A, N, x, 1, beta, y, 1);
}

template <>
void caffe_cpu_gemv<double>(const CBLAS_TRANSPOSE TransA, const int M,
                            const int N, const double alpha, const double* A,
                            const double* x, const double beta, double* y) {
  cblas_dgemv(CblasRowMajor, TransA, M, N, alpha, A, N, x, 1, beta, y, 1);
}

template <>
void caffe_axpy<float>(const int N, const float alpha, const float* X,
                       float* Y) {
  cblas_saxpy(N, alpha, X, 1, Y, 1);
}

template <>
void caffe_axpy<double>(const int N, const double alpha, const double* X,
                        double* Y) {
  cblas_daxpy(N, alpha, X, 1, Y, 1);
}

template <>
void caffe_cpu_axpby<float>(const int N, const float alpha, const float* X,
                            const float beta, float* Y) {
  cblas_saxpby(N, alpha, X, 1, beta, Y, 1);
}

template <>
void caffe_cpu_axpby<double>(const int N, const double alpha, const double* X,
                             const double beta, double* Y) {
  cblas_daxpby(N, alpha, X, 1, beta, Y, 1);
}

template <>
void caffe_scal<float>(const int N, const float alpha, float* X) {
  cblas_sscal(N, alpha, X, 1);
}

template <>
void caffe_scal<double>(const int N, const double alpha, double* X) {
  cblas_dscal(N, alpha, X, 1);
}

template <typename Dtype>
void caffe_add_scalar(const int N, const Dtype alpha, Dtype* X) {
  for (int i = 0; i < N; ++i) X[i] += alpha;
}

template <typename Dtype>
void caffe_sqr(const int n, const Dtype* a, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = a[i] * a[i];
}

template <typename Dtype>
void caffe_sqrt(const int n, const Dtype* a, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = std::sqrt(a[i]);
}

template <typename Dtype>
void caffe_add(const int n, const Dtype* a, const Dtype* b, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

template <typename Dtype>
void caffe_sub(const int n, const Dtype* a, const Dtype* b, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = a[i] - b[i];
}

template <typename Dtype>
void caffe_mul(const int n, const Dtype* a, const Dtype* b, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

template <typename Dtype>
void caffe_div(const int n, const Dtype* a, const Dtype* b, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = a[i] / b[i];
}

template <typename Dtype>
void caffe_powx(const int n, const Dtype* a, const Dtype b, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = std::pow(a[i], b);
}

template <typename Dtype>
void caffe_exp(const int n, const Dtype* a, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = std::exp(a[i]);
}

template <typename Dtype>
void caffe_log(const int n, const Dtype* a, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = std::log(a[i]);
}

template <typename Dtype>
void caffe_abs(const int n, const Dtype* a, Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = std::fabs(a[i]);
}

template <typename Dtype>
void caffe_cpu_scale(const int n, const Dtype alpha, const Dtype* x,
                     Dtype* y) {
  for (int i = 0; i < n; ++i) y[i] = alpha * x[i];
}

template <>
float caffe_cpu_strided_dot<float>(const int n, const float* x, const int incx,
                                   const float* y, const int incy) {
  return cblas_sdot(n, x, incx, y, incy);
}

template <>
double caffe_cpu_strided_dot<double>(const int n, const double* x,
                                     const int incx, const double* y,
                                     const int incy) {
  return cblas_ddot(n, x, incx, y, incy);
}

template <typename Dtype>
Dtype caffe_cpu_dot(const int n, const Dtype* x, const Dtype* y) {
  return caffe_cpu_strided_dot(n, x, 1, y, 1);
}

template <>
float caffe_cpu_asum<float>(const int n, const float* x) {
  return cblas_sasum(n, x, 1);
}

template <>
double caffe_cpu_asum<double>(const int n, const double* x) {
  return cblas_dasum(n, x, 1);
}

template <typename Dtype>
Dtype caffe_nextafter(const Dtype b) {
  return std::nextafter(b, std::numeric_limits<Dtype>::max());
}

template <typename Dtype>
void caffe_rng_uniform(const int n, const Dtype a, const Dtype b, Dtype* r) {
  CAFFE_CHECK_LE(a, b) << "uniform range";
  std::uniform_real_distribution<Dtype> dist(a, caffe_nextafter<Dtype>(b));
  for (int i = 0; i < n; ++i) {
    // Clamp: the distribution may round up to the open end.
    Dtype v = dist(Caffe::rng());
    r[i] = v > b ? b : v;
  }
}

template <typename Dtype>
void caffe_rng_gaussian(const int n, const Dtype mu, const Dtype sigma,
                        Dtype* r) {
  CAFFE_CHECK_GT(sigma, 0) << "gaussian std";
  std::normal_distribution<Dtype> dist(mu, sigma);
  for (int i = 0; i < n; ++i) r[i] = dist(Caffe::rng());
}

template <typename Dtype, typename Int>
static void BernoulliFill(const int n, const Dtype p, Int* r) {
  CAFFE_CHECK(p >= 0 && p <= 1) << "bernoulli probability " << p;
  std::bernoulli_distribution dist(p);
  for (int i = 0; i < n; ++i) r[i] = dist(Caffe::rng()) ? 1 : 0;
}

template <typename Dtype>
void caffe_rng_bernoulli(const int n, const Dtype p, int* r) {
  BernoulliFill(n, p, r);
}

template <typename Dtype>
void caffe_rng_bernoulli(const int n, const Dtype p, unsigned int* r) {
  BernoulliFill(n, p, r);
}

#define INSTANTIATE_MATH(T)                                              \
  template void caffe_add_scalar<T>(const int, const T, T*);             \
  template void caffe_sqr<T>(const int, const T*, T*);                   \
  template void caffe_sqrt<T>(const int, const T*, T*);                  \
  template void caffe_add<T>(const int, const T*, const T*, T*);         \
  template void caffe_sub<T>(const int, const T*, const T*, T*);         \
  template void caffe_mul<T>(const int, const T*, const T*, T*);         \
  template void caffe_div<T>(const int, const T*, const T*, T*);         \
  template void caffe_powx<T>(const int, const T*, const T, T*);         \
  template void caffe_exp<T>(const int, const T*, T*);                   \
  template void caffe_log<T>(const int, const T*, T*);                   \
  template void caffe_abs<T>(const int, const T*, T*);                   \
  template void caffe_cpu_scale<T>(const int, const T, const T*, T*);    \
  template T caffe_cpu_dot<T>(const int, const T*, const T*);            \
  template T caffe_nextafter<T>(const T);                                \
  template void caffe_rng_uniform<T>(const int, const T, const T, T*);   \
  template void caffe_rng_gaussian<T>(const int, const T, const T, T*);  \
  template void caffe_rng_bernoulli<T>(const int, const T, int*);        \
  template void caffe_rng_bernoulli<T>(const int, const T, unsigned int*)

INSTANTIATE_MATH(float);
INSTANTIATE_MATH(double);

}  // namespace caffe
