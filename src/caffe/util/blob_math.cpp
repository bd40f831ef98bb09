#include "caffe/util/blob_math.hpp"

#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace blob_math {

namespace {

// In GPU mode every part is taken on the device and the GPU routine runs;
// otherwise the host routine the call sites used before.
inline bool OnGpu() { return Caffe::mode() == Caffe::GPU; }

template <typename Dtype>
const Dtype* In(Part<Dtype> p, int count) {
  CAFFE_INTERNAL_CHECK(p.count() == count)
      << "blob_math: parts of " << p.count() << " and " << count
      << " elements";
  if (OnGpu()) return p.diff ? p.blob->gpu_diff() : p.blob->gpu_data();
  return p.diff ? p.blob->cpu_diff() : p.blob->cpu_data();
}
template <typename Dtype>
Dtype* Out(Part<Dtype> p) {
  if (OnGpu())
    return p.diff ? p.blob->mutable_gpu_diff() : p.blob->mutable_gpu_data();
  return p.diff ? p.blob->mutable_cpu_diff() : p.blob->mutable_cpu_data();
}

#ifdef USE_CUDA
#define ON_DEVICE(gpu_call, cpu_call) \
  if (OnGpu()) {                      \
    gpu_call;                         \
  } else {                            \
    cpu_call;                         \
  }
#else
#define ON_DEVICE(gpu_call, cpu_call) cpu_call
#endif

}  // namespace

template <typename Dtype>
void Set(Dtype value, Part<Dtype> y) {
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_set<Dtype>(y.count(), value, yp),
            caffe_set(y.count(), value, yp));
}

template <typename Dtype>
void Scal(Dtype a, Part<Dtype> y) {
  Dtype* yp = Out(y);
  ON_DEVICE(caffe_gpu_scal<Dtype>(y.count(), a, yp),
            caffe_scal(y.count(), a, yp));
}

template <typename Dtype>
void Scale(Dtype a, Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_scale<Dtype>(y.count(), a, xp, yp),
            caffe_cpu_scale(y.count(), a, xp, yp));
}

template <typename Dtype>
void Axpy(Dtype a, Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(caffe_gpu_axpy<Dtype>(y.count(), a, xp, yp),
            caffe_axpy(y.count(), a, xp, yp));
}

template <typename Dtype>
void Axpby(Dtype a, Part<Dtype> x, Dtype b, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_axpby<Dtype>(y.count(), a, xp, b, yp),
            caffe_cpu_axpby(y.count(), a, xp, b, yp));
}

template <typename Dtype>
void Copy(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_copy_bytes(sizeof(Dtype) * y.count(), xp, yp),
            caffe_copy(y.count(), xp, yp));
}

template <typename Dtype>
void Sign(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_sign<Dtype>(y.count(), xp, yp),
            caffe_cpu_sign(y.count(), xp, yp));
}

template <typename Dtype>
void Powx(Part<Dtype> x, Dtype p, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_powx<Dtype>(y.count(), xp, p, yp),
            caffe_powx(y.count(), xp, p, yp));
}

template <typename Dtype>
void Add(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_add<Dtype>(y.count(), ap, bp, yp),
            caffe_add(y.count(), ap, bp, yp));
}

template <typename Dtype>
void Mul(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_mul<Dtype>(y.count(), ap, bp, yp),
            caffe_mul(y.count(), ap, bp, yp));
}

template <typename Dtype>
void Div(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_div<Dtype>(y.count(), ap, bp, yp),
            caffe_div(y.count(), ap, bp, yp));
}

template <typename Dtype>
void AddScalar(Dtype a, Part<Dtype> y) {
  Dtype* yp = Out(y);
  ON_DEVICE(gpu_add_scalar<Dtype>(y.count(), a, yp),
            caffe_add_scalar(y.count(), a, yp));
}

template <typename Dtype>
Dtype Dot(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  const Dtype* yp = In(y, y.count());
#ifdef USE_CUDA
  if (OnGpu()) return caffe_gpu_dot<Dtype>(y.count(), xp, yp);
#endif
  return caffe_cpu_dot(y.count(), xp, yp);
}

#define INSTANTIATE_BLOB_MATH(Dtype)                                        \
  template void Set<Dtype>(Dtype, Part<Dtype>);                             \
  template void Scal<Dtype>(Dtype, Part<Dtype>);                            \
  template void Scale<Dtype>(Dtype, Part<Dtype>, Part<Dtype>);              \
  template void Axpy<Dtype>(Dtype, Part<Dtype>, Part<Dtype>);               \
  template void Axpby<Dtype>(Dtype, Part<Dtype>, Dtype, Part<Dtype>);       \
  template void Copy<Dtype>(Part<Dtype>, Part<Dtype>);                      \
  template void Sign<Dtype>(Part<Dtype>, Part<Dtype>);                      \
  template void Powx<Dtype>(Part<Dtype>, Dtype, Part<Dtype>);               \
  template void Add<Dtype>(Part<Dtype>, Part<Dtype>, Part<Dtype>);          \
  template void Mul<Dtype>(Part<Dtype>, Part<Dtype>, Part<Dtype>);          \
  template void Div<Dtype>(Part<Dtype>, Part<Dtype>, Part<Dtype>);          \
  template void AddScalar<Dtype>(Dtype, Part<Dtype>);                       \
  template Dtype Dot<Dtype>(Part<Dtype>, Part<Dtype>)

INSTANTIATE_BLOB_MATH(float);
INSTANTIATE_BLOB_MATH(double);

}  // namespace blob_math
}  // namespace caffe
