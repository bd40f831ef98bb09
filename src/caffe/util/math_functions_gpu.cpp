// cuBLAS wrappers (util/gpu_kernels.hpp).  Row-major products are computed
// as cuBLAS's column-major C^T = B^T A^T, as Caffe 1.0 does.
#ifdef USE_CUDA

#include <algorithm>

#include "caffe/util/cuda.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/int_pieces.hpp"

namespace caffe {

// cuBLAS's level-1 calls take int counts: longer vectors go in pieces.
namespace {
cublasOperation_t Op(CBLAS_TRANSPOSE t) {
  return t == CblasNoTrans ? CUBLAS_OP_N : CUBLAS_OP_T;
}
}  // namespace

template <>
void caffe_gpu_gemm<float>(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m,
                           int n, int k, float alpha, const float* a,
                           const float* b, float beta, float* c) {
  const int lda = ta == CblasNoTrans ? k : m;
  const int ldb = tb == CblasNoTrans ? n : k;
  CUBLAS_CHECK(cublasSgemm(CublasHandle(), Op(tb), Op(ta), n, m, k, &alpha, b,
                           ldb, a, lda, &beta, c, n));
}
template <>
void caffe_gpu_gemm<double>(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m,
                            int n, int k, double alpha, const double* a,
                            const double* b, double beta, double* c) {
  const int lda = ta == CblasNoTrans ? k : m;
  const int ldb = tb == CblasNoTrans ? n : k;
  CUBLAS_CHECK(cublasDgemm(CublasHandle(), Op(tb), Op(ta), n, m, k, &alpha, b,
                           ldb, a, lda, &beta, c, n));
}

// Row-major y = op(A) x with A m x n is column-major A^T: flip the op.
template <>
void caffe_gpu_gemv<float>(CBLAS_TRANSPOSE ta, int m, int n, float alpha,
                           const float* a, const float* x, float beta,
                           float* y) {
  const cublasOperation_t op = ta == CblasNoTrans ? CUBLAS_OP_T : CUBLAS_OP_N;
  CUBLAS_CHECK(
      cublasSgemv(CublasHandle(), op, n, m, &alpha, a, n, x, 1, &beta, y, 1));
}
template <>
void caffe_gpu_gemv<double>(CBLAS_TRANSPOSE ta, int m, int n, double alpha,
                            const double* a, const double* x, double beta,
                            double* y) {
  const cublasOperation_t op = ta == CblasNoTrans ? CUBLAS_OP_T : CUBLAS_OP_N;
  CUBLAS_CHECK(
      cublasDgemv(CublasHandle(), op, n, m, &alpha, a, n, x, 1, &beta, y, 1));
}

template <>
void caffe_gpu_axpy<float>(long n, float alpha, const float* x, float* y) {
  ForIntPieces(n, [&](int64_t o, int len) {
    CUBLAS_CHECK(cublasSaxpy(CublasHandle(), len, &alpha, x + o, 1, y + o, 1));
  });
}
template <>
void caffe_gpu_axpy<double>(long n, double alpha, const double* x,
                            double* y) {
  ForIntPieces(n, [&](int64_t o, int len) {
    CUBLAS_CHECK(cublasDaxpy(CublasHandle(), len, &alpha, x + o, 1, y + o, 1));
  });
}
template <>
void caffe_gpu_scal<float>(long n, float alpha, float* x) {
  ForIntPieces(n, [&](int64_t o, int len) {
    CUBLAS_CHECK(cublasSscal(CublasHandle(), len, &alpha, x + o, 1));
  });
}
template <>
void caffe_gpu_scal<double>(long n, double alpha, double* x) {
  ForIntPieces(n, [&](int64_t o, int len) {
    CUBLAS_CHECK(cublasDscal(CublasHandle(), len, &alpha, x + o, 1));
  });
}
// Reductions add the chunks' partial results in chunk order.
template <>
float caffe_gpu_dot<float>(long n, const float* x, const float* y) {
  float total = 0;
  ForIntPieces(n, [&](int64_t o, int len) {
    float part = 0;
    CUBLAS_CHECK(cublasSdot(CublasHandle(), len, x + o, 1, y + o, 1, &part));
    total += part;
  });
  return total;
}
template <>
double caffe_gpu_dot<double>(long n, const double* x, const double* y) {
  double total = 0;
  ForIntPieces(n, [&](int64_t o, int len) {
    double part = 0;
    CUBLAS_CHECK(cublasDdot(CublasHandle(), len, x + o, 1, y + o, 1, &part));
    total += part;
  });
  return total;
}
template <>
float caffe_gpu_asum<float>(long n, const float* x) {
  float total = 0;
  ForIntPieces(n, [&](int64_t o, int len) {
    float part = 0;
    CUBLAS_CHECK(cublasSasum(CublasHandle(), len, x + o, 1, &part));
    total += part;
  });
  return total;
}
template <>
double caffe_gpu_asum<double>(long n, const double* x) {
  double total = 0;
  ForIntPieces(n, [&](int64_t o, int len) {
    double part = 0;
    CUBLAS_CHECK(cublasDasum(CublasHandle(), len, x + o, 1, &part));
    total += part;
  });
  return total;
}

}  // namespace caffe

#endif  // USE_CUDA
