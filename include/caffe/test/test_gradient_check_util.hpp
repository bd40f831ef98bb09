// test_gradient_check_util.hpp: finite-difference gradient checks for layers.
//
// Contract: CheckGradient* perturbs each input (bottom data and, unless
// excluded, each parameter) by +-stepsize, recomputes the objective
// sum_i top[i]->data() * weight (weights drawn once at random so that every
// output element matters), and compares the centred difference with the
// layer's analytic gradient to threshold * max(|a|, |b|, 1).  kink/kink_range
// skip points where the function is not differentiable (ReLU at 0, ...).
#ifndef CAFFE_TEST_GRADIENT_CHECK_UTIL_HPP_
#define CAFFE_TEST_GRADIENT_CHECK_UTIL_HPP_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "caffe/layer.hpp"

namespace caffe {

template <typename Dtype>
class GradientChecker {
 public:
  GradientChecker(Dtype stepsize, Dtype threshold, unsigned int seed = 1701,
                  Dtype kink = 0, Dtype kink_range = -1)
      : stepsize_(stepsize), threshold_(threshold), seed_(seed), kink_(kink),
        kink_range_(kink_range) {}

  // Checks the gradient of every top element w.r.t. every bottom (and param).
  void CheckGradientExhaustive(Layer<Dtype>* layer,
                               const vector<Blob<Dtype>*>& bottom,
                               const vector<Blob<Dtype>*>& top,
                               int check_bottom = -1) {
    layer->SetUp(bottom, top);
    CheckGradientSingle(layer, bottom, top, check_bottom, -1, -1);
  }

  // Same, but only bottom[check_bottom] (or all when -1) and no parameters
  // when params are excluded.
  void CheckGradient(Layer<Dtype>* layer, const vector<Blob<Dtype>*>& bottom,
                     const vector<Blob<Dtype>*>& top, int check_bottom = -1) {
    layer->SetUp(bottom, top);
    CheckGradientSingle(layer, bottom, top, check_bottom, -1, -1);
  }

  // For element-wise layers: only d top[i] / d bottom[i] matters.
  void CheckGradientEltwise(Layer<Dtype>* layer,
                            const vector<Blob<Dtype>*>& bottom,
                            const vector<Blob<Dtype>*>& top) {
    layer->SetUp(bottom, top);
    CheckGradientSingle(layer, bottom, top, -1, -1, -1);
  }

  // The objective is sum over tops (or only top_id if >= 0; element
  // top_data_id if >= 0) of data * random weight.
  void CheckGradientSingle(Layer<Dtype>* layer,
                           const vector<Blob<Dtype>*>& bottom,
                           const vector<Blob<Dtype>*>& top, int check_bottom,
                           int top_id, int top_data_id,
                           bool element_wise = false) {
    (void)element_wise;
    // Blobs to check: bottoms (all or one) then the layer's parameters.
    vector<Blob<Dtype>*> blobs_to_check;
    vector<bool> propagate_down(bottom.size(), check_bottom == -1);
    for (auto& p : layer->blobs()) blobs_to_check.push_back(p.get());
    if (check_bottom == -1) {
      for (auto* b : bottom) blobs_to_check.push_back(b);
    } else if (check_bottom >= 0) {
      CAFFE_CHECK_LT(check_bottom, static_cast<int>(bottom.size()));
      blobs_to_check.push_back(bottom[check_bottom]);
      propagate_down[check_bottom] = true;
    }
    ASSERT_GT(blobs_to_check.size(), 0u) << "nothing to check";

    // Fixed random weights for the objective.
    Caffe::set_random_seed(seed_);
    layer->Forward(bottom, top);
    weights_.clear();
    for (size_t i = 0; i < top.size(); ++i) {
      weights_.emplace_back(top[i]->count());
      caffe_rng_uniform<Dtype>(top[i]->count(), Dtype(-1), Dtype(1),
                               weights_.back().data());
    }

    // Analytic gradient.
    Caffe::set_random_seed(seed_);
    layer->Forward(bottom, top);
    SetTopDiffs(top, top_id, top_data_id);
    for (auto& p : layer->blobs())
      caffe_set(p->count(), Dtype(0), p->mutable_cpu_diff());
    layer->Backward(top, propagate_down, bottom);
    vector<vector<Dtype> > computed(blobs_to_check.size());
    for (size_t b = 0; b < blobs_to_check.size(); ++b) {
      const Dtype* d = blobs_to_check[b]->cpu_diff();
      computed[b].assign(d, d + blobs_to_check[b]->count());
    }

    // Numeric gradient.
    for (size_t b = 0; b < blobs_to_check.size(); ++b) {
      Blob<Dtype>* blob = blobs_to_check[b];
      for (int i = 0; i < blob->count(); ++i) {
        Dtype* x = blob->mutable_cpu_data();
        const Dtype orig = x[i];
        if (kink_range_ > 0 && std::fabs(orig - kink_) < kink_range_)
          continue;
        x[i] = orig + stepsize_;
        Caffe::set_random_seed(seed_);
        const Dtype pos = Objective(layer, bottom, top, top_id, top_data_id);
        blob->mutable_cpu_data()[i] = orig - stepsize_;
        Caffe::set_random_seed(seed_);
        const Dtype neg = Objective(layer, bottom, top, top_id, top_data_id);
        blob->mutable_cpu_data()[i] = orig;
        const Dtype estimated = (pos - neg) / (Dtype(2) * stepsize_);
        const Dtype analytic = computed[b][i];
        const Dtype scale = std::max<Dtype>(
            std::max(std::fabs(analytic), std::fabs(estimated)), Dtype(1));
        EXPECT_NEAR(analytic, estimated, threshold_ * scale)
            << "blob " << b << " index " << i << " of layer "
            << layer->type();
      }
    }
  }

 private:
  void SetTopDiffs(const vector<Blob<Dtype>*>& top, int top_id,
                   int top_data_id) {
    for (size_t i = 0; i < top.size(); ++i) {
      Dtype* diff = top[i]->mutable_cpu_diff();
      for (int j = 0; j < top[i]->count(); ++j) {
        bool used = (top_id < 0 || top_id == static_cast<int>(i)) &&
                    (top_data_id < 0 || top_data_id == j);
        diff[j] = used ? weights_[i][j] : Dtype(0);
      }
    }
  }

  Dtype Objective(Layer<Dtype>* layer, const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top, int top_id,
                  int top_data_id) {
    layer->Forward(bottom, top);
    Dtype sum = 0;
    for (size_t i = 0; i < top.size(); ++i) {
      const Dtype* data = top[i]->cpu_data();
      for (int j = 0; j < top[i]->count(); ++j) {
        bool used = (top_id < 0 || top_id == static_cast<int>(i)) &&
                    (top_data_id < 0 || top_data_id == j);
        if (used) sum += data[j] * weights_[i][j];
      }
    }
    return sum;
  }

  Dtype stepsize_;
  Dtype threshold_;
  unsigned int seed_;
  Dtype kink_;
  Dtype kink_range_;
  vector<vector<Dtype> > weights_;
};

// Typed-test list used by every layer test: float and double.
typedef ::testing::Types<float, double> TestDtypes;

}  // namespace caffe

#endif  // CAFFE_TEST_GRADIENT_CHECK_UTIL_HPP_
