// blob_math.hpp: device-neutral math on blobs' data and diffs.
//
// Contract:
//  * Call sites name a blob's data or diff (Data(b), Diff(b)), never a
//    device pointer; each function runs where the net's memory lives for
//    Caffe::mode().  Used by the loss sum in Layer::Forward,
//    Net::ClearParamDiffs, Blob::Update and the solvers' update math, so a
//    GPU back end adds its branch in blob_math.cpp, not at those sites.
//  * In CPU mode each function calls the same host routine
//    (math_functions.hpp) the call site used before, so results are
//    bit-identical to it.  In GPU mode (a USE_CUDA build) the parts are
//    taken on the device and GPU kernels or cuBLAS run: parameters, their
//    diffs and solver history stay on the GPU, with no host round trip.
//  * Shapes must agree: every part given to one call has the count of the
//    last (output) part; a mismatch is an InternalError (callers size their
//    blobs alike, a user cannot cause it).
//  * Float and double.
#ifndef CAFFE_UTIL_BLOB_MATH_HPP_
#define CAFFE_UTIL_BLOB_MATH_HPP_

#include "caffe/blob.hpp"

namespace caffe {
namespace blob_math {

// A blob's data or diff.
template <typename Dtype>
struct Part {
  Blob<Dtype>* blob;
  bool diff;
  int count() const { return blob->count(); }
};
template <typename Dtype>
Part<Dtype> Data(Blob<Dtype>* b) { return Part<Dtype>{b, false}; }
template <typename Dtype>
Part<Dtype> Diff(Blob<Dtype>* b) { return Part<Dtype>{b, true}; }

// y = value
template <typename Dtype> void Set(Dtype value, Part<Dtype> y);
// y *= a
template <typename Dtype> void Scal(Dtype a, Part<Dtype> y);
// y = a * x
template <typename Dtype> void Scale(Dtype a, Part<Dtype> x, Part<Dtype> y);
// y += a * x
template <typename Dtype> void Axpy(Dtype a, Part<Dtype> x, Part<Dtype> y);
// y = a * x + b * y
template <typename Dtype>
void Axpby(Dtype a, Part<Dtype> x, Dtype b, Part<Dtype> y);
// y = x
template <typename Dtype> void Copy(Part<Dtype> x, Part<Dtype> y);
// y = sign(x)
template <typename Dtype> void Sign(Part<Dtype> x, Part<Dtype> y);
// y = x ^ p
template <typename Dtype> void Powx(Part<Dtype> x, Dtype p, Part<Dtype> y);
// y = a + b, a * b, a / b (elementwise)
template <typename Dtype> void Add(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y);
template <typename Dtype> void Mul(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y);
template <typename Dtype> void Div(Part<Dtype> a, Part<Dtype> b, Part<Dtype> y);
// y += a
template <typename Dtype> void AddScalar(Dtype a, Part<Dtype> y);
// sum of x * y
template <typename Dtype> Dtype Dot(Part<Dtype> x, Part<Dtype> y);

}  // namespace blob_math
}  // namespace caffe

#endif  // CAFFE_UTIL_BLOB_MATH_HPP_
