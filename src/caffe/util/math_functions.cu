// Element-wise GPU math (util/gpu_kernels.hpp): launches of small bodies.
#include <cmath>
#include <limits>

#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/gpu_launch.cuh"

namespace caffe {

namespace {

template <typename Dtype>
struct SetBody {
  Dtype* y;
  Dtype value;
  CAFFE_KERNEL void operator()(long i) const { y[i] = value; }
};
template <typename Dtype>
struct AddScalarBody {
  Dtype* y;
  Dtype a;
  CAFFE_KERNEL void operator()(long i) const { y[i] += a; }
};
template <typename Dtype>
struct ScaleBody {
  const Dtype* x;
  Dtype* y;
  Dtype a;
  CAFFE_KERNEL void operator()(long i) const { y[i] = a * x[i]; }
};
template <typename Dtype>
struct SignBody {
  const Dtype* x;
  Dtype* y;
  CAFFE_KERNEL void operator()(long i) const {
    y[i] = (Dtype(0) < x[i]) - (x[i] < Dtype(0));
  }
};
template <typename Dtype>
struct PowxBody {
  const Dtype* x;
  Dtype* y;
  Dtype p;
  CAFFE_KERNEL void operator()(long i) const { y[i] = pow(x[i], p); }
};
template <typename Dtype, typename Op>
struct BinaryBody {
  const Dtype* a;
  const Dtype* b;
  Dtype* y;
  Op op;
  CAFFE_KERNEL void operator()(long i) const { y[i] = op(a[i], b[i]); }
};
template <typename Dtype>
struct SubOp {
  CAFFE_KERNEL Dtype operator()(Dtype a, Dtype b) const { return a - b; }
};
template <typename Dtype>
struct DivOp {
  CAFFE_KERNEL Dtype operator()(Dtype a, Dtype b) const { return a / b; }
};

}  // namespace

template <typename Dtype>
void gpu_fill_nan(Dtype* y, size_t n) {
  ForEachGpu(static_cast<long>(n),
             SetBody<Dtype>{y, std::numeric_limits<Dtype>::quiet_NaN()});
}
template <typename Dtype>
void gpu_set(long n, Dtype value, Dtype* y) {
  ForEachGpu(n, SetBody<Dtype>{y, value});
}
template <typename Dtype>
void gpu_add_scalar(long n, Dtype a, Dtype* y) {
  ForEachGpu(n, AddScalarBody<Dtype>{y, a});
}
template <typename Dtype>
void gpu_scale(long n, Dtype a, const Dtype* x, Dtype* y) {
  ForEachGpu(n, ScaleBody<Dtype>{x, y, a});
}
template <typename Dtype>
void gpu_axpby(long n, Dtype a, const Dtype* x, Dtype b, Dtype* y) {
  ForEachGpu(n, Axpby<Dtype>{x, y, a, b});
}
template <typename Dtype>
void gpu_sign(long n, const Dtype* x, Dtype* y) {
  ForEachGpu(n, SignBody<Dtype>{x, y});
}
template <typename Dtype>
void gpu_powx(long n, const Dtype* x, Dtype p, Dtype* y) {
  ForEachGpu(n, PowxBody<Dtype>{x, y, p});
}
template <typename Dtype>
void gpu_add(long n, const Dtype* a, const Dtype* b, Dtype* y) {
  ForEachGpu(n, BinaryBody<Dtype, AddOp<Dtype> >{a, b, y, AddOp<Dtype>()});
}
template <typename Dtype>
void gpu_sub(long n, const Dtype* a, const Dtype* b, Dtype* y) {
  ForEachGpu(n, BinaryBody<Dtype, SubOp<Dtype> >{a, b, y, SubOp<Dtype>()});
}
template <typename Dtype>
void gpu_mul(long n, const Dtype* a, const Dtype* b, Dtype* y) {
  ForEachGpu(n, BinaryBody<Dtype, MulOp<Dtype> >{a, b, y, MulOp<Dtype>()});
}
template <typename Dtype>
void gpu_div(long n, const Dtype* a, const Dtype* b, Dtype* y) {
  ForEachGpu(n, BinaryBody<Dtype, DivOp<Dtype> >{a, b, y, DivOp<Dtype>()});
}

void gpu_copy_bytes(size_t bytes, const void* x, void* y) {
  if (bytes && x != y)
    CUDA_CHECK(cudaMemcpy(y, x, bytes, cudaMemcpyDefault));
}

#define INSTANTIATE_GPU_MATH(Dtype)                                          \
  template void gpu_fill_nan<Dtype>(Dtype*, size_t);                         \
  template void gpu_set<Dtype>(long, Dtype, Dtype*);                         \
  template void gpu_add_scalar<Dtype>(long, Dtype, Dtype*);                  \
  template void gpu_scale<Dtype>(long, Dtype, const Dtype*, Dtype*);         \
  template void gpu_axpby<Dtype>(long, Dtype, const Dtype*, Dtype, Dtype*);  \
  template void gpu_sign<Dtype>(long, const Dtype*, Dtype*);                 \
  template void gpu_powx<Dtype>(long, const Dtype*, Dtype, Dtype*);          \
  template void gpu_add<Dtype>(long, const Dtype*, const Dtype*, Dtype*);    \
  template void gpu_sub<Dtype>(long, const Dtype*, const Dtype*, Dtype*);    \
  template void gpu_mul<Dtype>(long, const Dtype*, const Dtype*, Dtype*);    \
  template void gpu_div<Dtype>(long, const Dtype*, const Dtype*, Dtype*)

INSTANTIATE_GPU_MATH(float);
INSTANTIATE_GPU_MATH(double);

}  // namespace caffe
