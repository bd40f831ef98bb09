#include "caffe/util/blob_math.hpp"

#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace blob_math {

namespace {

// The host side of a part.  The one place a GPU back end changes: in GPU
// mode it will hand out device pointers and call device routines instead.
template <typename Dtype>
const Dtype* In(Part<Dtype> p, int count) {
  CAFFE_INTERNAL_CHECK(p.count() == count)
      << "blob_math: parts of " << p.count() << " and " << count
      << " elements";
  return p.diff ? p.blob->cpu_diff() : p.blob->cpu_data();
}
template <typename Dtype>
Dtype* Out(Part<Dtype> p) {
  return p.diff ? p.blob->mutable_cpu_diff() : p.blob->mutable_cpu_data();
}

}  // namespace

template <typename Dtype>
void Set(Dtype value, Part<Dtype> y) {
  caffe_set(y.count(), value, Out(y));
}

template <typename Dtype>
void Scal(Dtype a, Part<Dtype> y) {
  caffe_scal(y.count(), a, Out(y));
}

template <typename Dtype>
void Scale(Dtype a, Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  caffe_cpu_scale(y.count(), a, xp, Out(y));
}

template <typename Dtype>
void Axpy(Dtype a, Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  caffe_axpy(y.count(), a, xp, Out(y));
}

template <typename Dtype>
void Axpby(Dtype a, Part<Dtype> x, Dtype b, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  caffe_cpu_axpby(y.count(), a, xp, b, Out(y));
}

template <typename Dtype>
void Copy(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  caffe_copy(y.count(), xp, Out(y));
}

template <typename Dtype>
void Sign(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  caffe_cpu_sign(y.count(), xp, Out(y));
}

template <typename Dtype>
void Powx(Part<Dtype> x, Dtype p, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  caffe_powx(y.count(), xp, p, Out(y));
}

template <typename Dtype>
void Add(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  caffe_add(y.count(), ap, bp, Out(y));
}

template <typename Dtype>
void Mul(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  caffe_mul(y.count(), ap, bp, Out(y));
}

template <typename Dtype>
void Div(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  caffe_div(y.count(), ap, bp, Out(y));
}

template <typename Dtype>
void AddScalar(Dtype a, Part<Dtype> y) {
  caffe_add_scalar(y.count(), a, Out(y));
}

template <typename Dtype>
Dtype Dot(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  return caffe_cpu_dot(y.count(), xp, In(y, y.count()));
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
