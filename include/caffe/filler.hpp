// filler.hpp: initial values for learnable blobs and DummyData tops.
//
// Contract: GetFiller(param) returns the filler named by param.type()
// (constant, gaussian with optional sparse, uniform, xavier, msra,
// positive_unitball, bilinear) and throws caffe::Error for an unknown name;
// NewFilledBlob creates and fills a blob with it.
// Fan-in is count/shape(0), fan-out is count/shape(1), as in Caffe 1.0.
// All draws come from Caffe::rng(), so random_seed makes them repeatable.
#ifndef CAFFE_FILLER_HPP_
#define CAFFE_FILLER_HPP_

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/util/math_functions.hpp"

namespace caffe {

template <typename Dtype>
class Filler {
 public:
  explicit Filler(const FillerParameter& param) : filler_param_(param) {}
  virtual ~Filler() {}
  virtual void Fill(Blob<Dtype>* blob) = 0;

 protected:
  // The scale denominator chosen by variance_norm.
  Dtype VarianceDenominator(Blob<Dtype>* blob) const {
    CAFFE_CHECK(blob->count()) << "cannot fill an empty blob";
    const int fan_in = blob->count() / std::max(blob->shape(0), 1);
    const int fan_out = blob->num_axes() > 1
                            ? blob->count() / std::max(blob->shape(1), 1)
                            : blob->count();
    Dtype n = fan_in;
    if (filler_param_.variance_norm() == FillerParameter_VarianceNorm_AVERAGE)
      n = (fan_in + fan_out) / Dtype(2);
    else if (filler_param_.variance_norm() ==
             FillerParameter_VarianceNorm_FAN_OUT)
      n = fan_out;
    return n;
  }
  FillerParameter filler_param_;
};

template <typename Dtype>
class ConstantFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    caffe_set(blob->count(), Dtype(this->filler_param_.value()),
              blob->mutable_cpu_data());
  }
};

template <typename Dtype>
class UniformFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    caffe_rng_uniform<Dtype>(blob->count(), this->filler_param_.min(),
                             this->filler_param_.max(),
                             blob->mutable_cpu_data());
  }
};

// Gaussian; with sparse = k > 0 each output keeps about k non-zero inputs.
template <typename Dtype>
class GaussianFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    Dtype* data = blob->mutable_cpu_data();
    caffe_rng_gaussian<Dtype>(blob->count(), this->filler_param_.mean(),
                              this->filler_param_.std(), data);
    const int sparse = this->filler_param_.sparse();
    CAFFE_CHECK_GE(sparse, -1) << "sparse";
    if (sparse >= 0) {
      CAFFE_CHECK_GE(blob->num_axes(), 1);
      const int num_outputs = blob->shape(0);
      const Dtype non_zero_probability = Dtype(sparse) / Dtype(num_outputs);
      vector<int> mask(blob->count());
      caffe_rng_bernoulli(blob->count(), non_zero_probability, mask.data());
      for (int i = 0; i < blob->count(); ++i) data[i] *= mask[i];
    }
  }
};

// Each row (over all axes but the first) lies on the unit simplex.
template <typename Dtype>
class PositiveUnitballFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    Dtype* data = blob->mutable_cpu_data();
    caffe_rng_uniform<Dtype>(blob->count(), 0, 1, data);
    const int num = blob->shape(0);
    const int dim = blob->count() / num;
    CAFFE_CHECK(dim) << "positive_unitball needs a non-empty row";
    for (int i = 0; i < num; ++i) {
      Dtype sum = 0;
      for (int j = 0; j < dim; ++j) sum += data[i * dim + j];
      for (int j = 0; j < dim; ++j) data[i * dim + j] /= sum;
    }
  }
};

// Uniform in [-s, s] with s = sqrt(3 / n) (Glorot and Bengio 2010).
template <typename Dtype>
class XavierFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    Dtype scale = std::sqrt(Dtype(3) / this->VarianceDenominator(blob));
    caffe_rng_uniform<Dtype>(blob->count(), -scale, scale,
                             blob->mutable_cpu_data());
  }
};

// Gaussian with std sqrt(2 / n) (He et al. 2015).
template <typename Dtype>
class MSRAFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    Dtype std = std::sqrt(Dtype(2) / this->VarianceDenominator(blob));
    caffe_rng_gaussian<Dtype>(blob->count(), Dtype(0), std,
                              blob->mutable_cpu_data());
  }
};

// Bilinear upsampling kernel for Deconvolution (4-D, square kernels).
template <typename Dtype>
class BilinearFiller : public Filler<Dtype> {
 public:
  using Filler<Dtype>::Filler;
  void Fill(Blob<Dtype>* blob) override {
    CAFFE_CHECK_EQ(blob->num_axes(), 4) << "bilinear filler needs 4-D blobs";
    CAFFE_CHECK_EQ(blob->width(), blob->height())
        << "bilinear filler needs square kernels";
    Dtype* data = blob->mutable_cpu_data();
    const int f = static_cast<int>(std::ceil(blob->width() / 2.0));
    const Dtype c = (blob->width() - 1) / (2.0 * f);
    for (int i = 0; i < blob->count(); ++i) {
      const Dtype x = i % blob->width();
      const Dtype y = (i / blob->width()) % blob->height();
      data[i] = (1 - std::fabs(x / f - c)) * (1 - std::fabs(y / f - c));
    }
  }
};

template <typename Dtype>
Filler<Dtype>* GetFiller(const FillerParameter& param) {
  const string& type = param.type();
  if (type == "constant") return new ConstantFiller<Dtype>(param);
  if (type == "gaussian") return new GaussianFiller<Dtype>(param);
  if (type == "positive_unitball")
    return new PositiveUnitballFiller<Dtype>(param);
  if (type == "uniform") return new UniformFiller<Dtype>(param);
  if (type == "xavier") return new XavierFiller<Dtype>(param);
  if (type == "msra") return new MSRAFiller<Dtype>(param);
  if (type == "bilinear") return new BilinearFiller<Dtype>(param);
  CAFFE_THROW() << "Unknown filler type \"" << type
                << "\" (known: constant, gaussian, positive_unitball, "
                   "uniform, xavier, msra, bilinear)";
  return nullptr;
}

// A new blob of the given shape filled as param says: how a layer creates a
// learnable blob that no model file gave it.
template <typename Dtype>
Blob<Dtype>* NewFilledBlob(const vector<int>& shape,
                           const FillerParameter& param) {
  std::unique_ptr<Blob<Dtype> > blob(new Blob<Dtype>(shape));
  std::unique_ptr<Filler<Dtype> > filler(GetFiller<Dtype>(param));
  filler->Fill(blob.get());
  return blob.release();
}

}  // namespace caffe

#endif  // CAFFE_FILLER_HPP_
