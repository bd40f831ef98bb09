// blob_math (util/blob_math.hpp): each device-neutral call gives exactly
// the bytes of the host routine it stands for, in place too, and parts of
// different sizes are an internal error.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/util/blob_math.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

using blob_math::Data;
using blob_math::Diff;

template <typename Dtype>
class BlobMathTest : public ::testing::Test {
 protected:
  BlobMathTest() : a_(2, 3, 4, 5), b_(2, 3, 4, 5) {
    for (Blob<Dtype>* blob : {&a_, &b_}) {
      caffe_rng_uniform<Dtype>(blob->count(), Dtype(0.1), Dtype(2),
                               blob->mutable_cpu_data());
      caffe_rng_uniform<Dtype>(blob->count(), Dtype(-1), Dtype(1),
                               blob->mutable_cpu_diff());
    }
    n_ = a_.count();
  }
  // Copies of a_ and b_'s data and diff, for the reference routine.
  std::vector<Dtype> Copy(const Dtype* p) { return std::vector<Dtype>(p, p + n_); }
  void ExpectSame(const std::vector<Dtype>& want, const Dtype* got) {
    EXPECT_EQ(0, std::memcmp(want.data(), got, n_ * sizeof(Dtype)));
  }
  Blob<Dtype> a_, b_;
  int n_;
};

typedef ::testing::Types<float, double> Dtypes;
TYPED_TEST_SUITE(BlobMathTest, Dtypes);

TYPED_TEST(BlobMathTest, MatchesTheHostRoutinesBitForBit) {
  typedef TypeParam Dtype;
  const int n = this->n_;
  Blob<Dtype>& a = this->a_;
  Blob<Dtype>& b = this->b_;
  std::vector<Dtype> x = this->Copy(a.cpu_diff()), y = this->Copy(b.cpu_data());
  caffe_cpu_axpby(n, Dtype(0.3), x.data(), Dtype(0.9), y.data());
  blob_math::Axpby(Dtype(0.3), Diff(&a), Dtype(0.9), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_axpy(n, Dtype(-1), x.data(), y.data());
  blob_math::Axpy(Dtype(-1), Diff(&a), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  std::vector<Dtype> d = this->Copy(a.cpu_data());
  caffe_powx(n, d.data(), Dtype(0.5), y.data());
  blob_math::Powx(Data(&a), Dtype(0.5), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_div(n, x.data(), y.data(), y.data());  // in place, as the solvers do
  blob_math::Div(Diff(&a), Data(&b), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_mul(n, x.data(), x.data(), y.data());
  blob_math::Mul(Diff(&a), Diff(&a), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_add(n, y.data(), d.data(), y.data());
  blob_math::Add(Data(&b), Data(&a), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_add_scalar(n, Dtype(1e-8), y.data());
  blob_math::AddScalar(Dtype(1e-8), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_cpu_scale(n, Dtype(0.01), y.data(), y.data());
  blob_math::Scale(Dtype(0.01), Data(&b), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_scal(n, Dtype(3), y.data());
  blob_math::Scal(Dtype(3), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_cpu_sign(n, x.data(), y.data());
  blob_math::Sign(Diff(&a), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  caffe_copy(n, x.data(), y.data());
  blob_math::Copy(Diff(&a), Data(&b));
  this->ExpectSame(y, b.cpu_data());

  const Dtype dot = caffe_cpu_dot(n, d.data(), x.data());
  const Dtype got = blob_math::Dot(Data(&a), Diff(&a));
  EXPECT_EQ(0, std::memcmp(&dot, &got, sizeof(Dtype)));

  blob_math::Set(Dtype(0), Diff(&b));
  for (int i = 0; i < n; ++i) EXPECT_EQ(b.cpu_diff()[i], Dtype(0));
}

TYPED_TEST(BlobMathTest, PartsOfDifferentSizesAreAnInternalError) {
  typedef TypeParam Dtype;
  Blob<Dtype> small(1, 2, 3, 4);
  EXPECT_THROW(blob_math::Axpy(Dtype(1), Data(&small), Data(&this->a_)),
               InternalError);
}

}  // namespace
}  // namespace caffe
