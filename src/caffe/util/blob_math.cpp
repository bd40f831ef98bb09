#include "caffe/util/blob_math.hpp"

#include "caffe/util/device_math.hpp"

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
  return p.diff ? DiffOn(OnGpu(), *p.blob) : DataOn(OnGpu(), *p.blob);
}
template <typename Dtype>
Dtype* Out(Part<Dtype> p) {
  return p.diff ? MutableDiffOn(OnGpu(), p.blob)
                : MutableDataOn(OnGpu(), p.blob);
}

}  // namespace

template <typename Dtype>
void Set(Dtype value, Part<Dtype> y) {
  SetOn(OnGpu(), y.count(), value, Out(y));
}

template <typename Dtype>
void Scal(Dtype a, Part<Dtype> y) {
  ScalOn(OnGpu(), y.count(), a, Out(y));
}

template <typename Dtype>
void Scale(Dtype a, Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  ScaleOn(OnGpu(), y.count(), a, xp, Out(y));
}

template <typename Dtype>
void Axpy(Dtype a, Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  AxpyOn(OnGpu(), y.count(), a, xp, Out(y));
}

template <typename Dtype>
void Axpby(Dtype a, Part<Dtype> x, Dtype b, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  AxpbyOn(OnGpu(), y.count(), a, xp, b, Out(y));
}

template <typename Dtype>
void Copy(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  CopyOn(OnGpu(), y.count(), xp, Out(y));
}

template <typename Dtype>
void Sign(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  SignOn(OnGpu(), y.count(), xp, Out(y));
}

template <typename Dtype>
void Powx(Part<Dtype> x, Dtype p, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  PowxOn(OnGpu(), y.count(), xp, p, Out(y));
}

template <typename Dtype>
void Add(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  AddOn(OnGpu(), y.count(), ap, bp, Out(y));
}

template <typename Dtype>
void Mul(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  MulOn(OnGpu(), y.count(), ap, bp, Out(y));
}

template <typename Dtype>
void Div(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y) {
  const Dtype* ap = In(a, y.count());
  const Dtype* bp = In(b, y.count());
  DivOn(OnGpu(), y.count(), ap, bp, Out(y));
}

template <typename Dtype>
void AddScalar(Dtype a, Part<Dtype> y) {
  AddScalarOn(OnGpu(), y.count(), a, Out(y));
}

template <typename Dtype>
Dtype Dot(Part<Dtype> x, Part<Dtype> y) {
  const Dtype* xp = In(x, y.count());
  return DotOn(OnGpu(), y.count(), xp, In(y, y.count()));
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
