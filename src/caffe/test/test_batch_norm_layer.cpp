// Tests for BatchNormLayer: batch statistics in TRAIN, stored statistics in
// TEST (or with use_global_stats), the running-average update with its
// m / (m - 1) variance correction, gradients, in place, declarations and
// errors, on N x C x H x W, N x C and 1-D bottoms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/common.hpp"
#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/test/test_gradient_check_util.hpp"
#include "caffe/test/test_layer_contract_util.hpp"

namespace caffe {

using contract_test::CheckBackwardReads;
using contract_test::CheckInPlaceMatches;

template <typename Dtype>
class BatchNormLayerTest : public ::testing::Test {
 protected:
  BatchNormLayerTest() : bottom_(2, 3, 4, 5) {
    Caffe::set_random_seed(1701);
    Fill(&bottom_, Dtype(1.5), Dtype(2));
    bottom_vec_.push_back(&bottom_);
    top_vec_.push_back(&top_);
  }

  static void Fill(Blob<Dtype>* blob, Dtype mean, Dtype std) {
    caffe_rng_gaussian<Dtype>(blob->count(), mean, std,
                              blob->mutable_cpu_data());
  }

  static LayerParameter Param(Phase phase) {
    LayerParameter p;
    p.set_name("bn");
    p.set_type("BatchNorm");
    p.set_phase(phase);
    return p;
  }

  // Per-channel batch mean and (biased) variance, in double.
  static void Stats(const Blob<Dtype>& b, vector<double>* mean,
                    vector<double>* var) {
    const int num = b.shape(0);
    const int channels = b.num_axes() == 1 ? 1 : b.shape(1);
    const int spatial = b.count() / (num * channels);
    mean->assign(channels, 0);
    var->assign(channels, 0);
    for (int n = 0; n < num; ++n)
      for (int c = 0; c < channels; ++c)
        for (int s = 0; s < spatial; ++s)
          (*mean)[c] += b.cpu_data()[(n * channels + c) * spatial + s];
    for (int c = 0; c < channels; ++c) (*mean)[c] /= num * spatial;
    for (int n = 0; n < num; ++n)
      for (int c = 0; c < channels; ++c)
        for (int s = 0; s < spatial; ++s) {
          const double d =
              b.cpu_data()[(n * channels + c) * spatial + s] - (*mean)[c];
          (*var)[c] += d * d;
        }
    for (int c = 0; c < channels; ++c) (*var)[c] /= num * spatial;
  }

  // Checks top == (bottom - mean[c]) / sqrt(var[c] + eps), relatively.
  void ExpectNormalized(const Blob<Dtype>& bottom, const Blob<Dtype>& top,
                        const vector<double>& mean, const vector<double>& var,
                        double eps) {
    ASSERT_EQ(bottom.shape(), top.shape());
    const int num = bottom.shape(0);
    const int channels = mean.size();
    const int spatial = bottom.count() / (num * channels);
    const double tol = sizeof(Dtype) == 4 ? 1e-4 : 1e-10;
    // The layer's eps is a float parameter.
    const double eps32 = static_cast<float>(eps);
    for (int n = 0; n < num; ++n)
      for (int c = 0; c < channels; ++c)
        for (int s = 0; s < spatial; ++s) {
          const int i = (n * channels + c) * spatial + s;
          const double expected =
              (bottom.cpu_data()[i] - mean[c]) / std::sqrt(var[c] + eps32);
          EXPECT_NEAR(expected, top.cpu_data()[i],
                      tol * std::max(1.0, std::fabs(expected)))
              << "index " << i;
        }
  }

  Blob<Dtype> bottom_;
  Blob<Dtype> top_;
  vector<Blob<Dtype>*> bottom_vec_;
  vector<Blob<Dtype>*> top_vec_;
};

TYPED_TEST_SUITE(BatchNormLayerTest, TestDtypes);

TYPED_TEST(BatchNormLayerTest, ForwardTrain) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  vector<double> mean, var;
  this->Stats(this->bottom_, &mean, &var);
  this->ExpectNormalized(this->bottom_, this->top_, mean, var, 1e-5);
  // The output itself has zero mean and (almost) unit variance per channel.
  vector<double> out_mean, out_var;
  this->Stats(this->top_, &out_mean, &out_var);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(0, out_mean[c], 1e-5);
    EXPECT_NEAR(var[c] / (var[c] + 1e-5), out_var[c], 1e-4);
  }
}

TYPED_TEST(BatchNormLayerTest, ForwardTrain2D) {
  typedef TypeParam Dtype;
  Blob<Dtype> bottom(vector<int>{6, 4});
  this->Fill(&bottom, Dtype(-1), Dtype(3));
  vector<Blob<Dtype>*> bottom_vec(1, &bottom);
  LayerParameter p = this->Param(TRAIN);
  p.mutable_batch_norm_param()->set_eps(1e-3f);
  BatchNormLayer<Dtype> layer(p);
  layer.SetUp(bottom_vec, this->top_vec_);
  EXPECT_EQ(vector<int>(1, 4), layer.blobs()[0]->shape());
  layer.Forward(bottom_vec, this->top_vec_);
  vector<double> mean, var;
  this->Stats(bottom, &mean, &var);
  this->ExpectNormalized(bottom, this->top_, mean, var, double(1e-3f));
}

TYPED_TEST(BatchNormLayerTest, ForwardTrain1D) {
  typedef TypeParam Dtype;
  Blob<Dtype> bottom(vector<int>(1, 7));
  this->Fill(&bottom, Dtype(2), Dtype(1));
  vector<Blob<Dtype>*> bottom_vec(1, &bottom);
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  layer.SetUp(bottom_vec, this->top_vec_);
  EXPECT_EQ(1, layer.blobs()[0]->count());
  layer.Forward(bottom_vec, this->top_vec_);
  vector<double> mean, var;
  this->Stats(bottom, &mean, &var);
  this->ExpectNormalized(bottom, this->top_, mean, var, 1e-5);
}

// The statistics hold where their sums would cancel: a channel whose mean
// is 770,000 deviations (the statistics are shifted by the channel's
// first element), a constant channel, and one whose first element is an
// outlier.  Compared through the running sums (blobs 0 and 1), which after
// one pass hold the batch's mean and its variance times m / (m - 1).
TYPED_TEST(BatchNormLayerTest, StatisticsOfLargeMeansAndConstants) {
  typedef TypeParam Dtype;
  Blob<Dtype> bottom(4, 3, 6, 7);
  const int spatial = 6 * 7;
  Dtype* x = bottom.mutable_cpu_data();
  caffe_rng_gaussian<Dtype>(bottom.count(), Dtype(0), Dtype(1), x);
  for (int n = 0; n < 4; ++n)
    for (int s = 0; s < spatial; ++s) {
      Dtype* at = x + n * 3 * spatial + s;
      at[0] = Dtype(10000.37) + Dtype(0.013) * at[0];
      at[spatial] = Dtype(3.25);
    }
  x[2 * spatial] = Dtype(50);  // channel 2's first element
  vector<Blob<Dtype>*> bottom_vec(1, &bottom);
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  layer.SetUp(bottom_vec, this->top_vec_);
  layer.Forward(bottom_vec, this->top_vec_);
  vector<double> mean, var;
  this->Stats(bottom, &mean, &var);
  const double m = 4 * spatial;
  const double tol = sizeof(Dtype) == 4 ? 1e-6 : 1e-13;
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(mean[c], layer.blobs()[0]->cpu_data()[c],
                tol * std::fabs(mean[c])) << "channel " << c;
    EXPECT_NEAR(m / (m - 1) * var[c], layer.blobs()[1]->cpu_data()[c],
                tol * var[c]) << "channel " << c;
  }
  EXPECT_EQ(Dtype(0), layer.blobs()[1]->cpu_data()[1]);
  for (int n = 0; n < 4; ++n)
    for (int s = 0; s < spatial; ++s)
      ASSERT_EQ(Dtype(0), this->top_.cpu_data()[(n * 3 + 1) * spatial + s]);
  // Channel 2's output is as exact as the type (channel 0's mean does not
  // fit a float's mantissa next to its deviation, so neither can x - mean).
  const double out_tol = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
  for (int n = 0; n < 4; ++n)
    for (int s = 0; s < spatial; ++s) {
      const int i = (n * 3 + 2) * spatial + s;
      const double expected =
          (x[i] - mean[2]) / std::sqrt(var[2] + double(1e-5f));
      EXPECT_NEAR(expected, this->top_.cpu_data()[i],
                  out_tol * std::max(1.0, std::fabs(expected)));
    }
}

TYPED_TEST(BatchNormLayerTest, RunningStatisticsAfterTwoPasses) {
  typedef TypeParam Dtype;
  LayerParameter p = this->Param(TRAIN);
  p.mutable_batch_norm_param()->set_moving_average_fraction(0.9f);
  BatchNormLayer<Dtype> layer(p);
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(3u, layer.blobs().size());
  vector<double> mean1, var1, mean2, var2;
  this->Stats(this->bottom_, &mean1, &var1);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  Blob<Dtype> second(2, 3, 4, 5);
  this->Fill(&second, Dtype(-0.5), Dtype(0.7));
  vector<Blob<Dtype>*> second_vec(1, &second);
  this->Stats(second, &mean2, &var2);
  layer.Forward(second_vec, this->top_vec_);

  const double f = double(0.9f);
  const double m = 2 * 4 * 5;
  const double correction = m / (m - 1);
  const double tol = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
  EXPECT_NEAR(f * 1 + 1, layer.blobs()[2]->cpu_data()[0], tol);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(mean2[c] + f * mean1[c], layer.blobs()[0]->cpu_data()[c],
                tol * 10);
    EXPECT_NEAR(correction * var2[c] + f * correction * var1[c],
                layer.blobs()[1]->cpu_data()[c], tol * 10);
  }
  // The second pass normalized with its own batch statistics.
  this->ExpectNormalized(second, this->top_, mean2, var2, 1e-5);
}

TYPED_TEST(BatchNormLayerTest, RerunReusesTheForwardsStatistics) {
  // A recomputing forward normalizes with the statistics of the forward
  // before it (it declares them as read: RerunReadsMemory), leaves the
  // running sums alone, and gives the forward's bits on the same input.
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const vector<Dtype> first(this->top_.cpu_data(),
                            this->top_.cpu_data() + this->top_.count());
  vector<double> mean, var;
  this->Stats(this->bottom_, &mean, &var);
  vector<SyncedMemory*> kept, reread;
  layer.KeptMemory(&kept);
  layer.RerunReadsMemory(&reread);
  ASSERT_EQ(2u, reread.size());
  for (SyncedMemory* m : reread)
    EXPECT_NE(std::find(kept.begin(), kept.end(), m), kept.end());
  const vector<Dtype> sums(layer.blobs()[0]->cpu_data(),
                           layer.blobs()[0]->cpu_data() + 3);

  layer.set_recomputing(true);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  for (int i = 0; i < this->top_.count(); ++i)
    ASSERT_EQ(first[i], this->top_.cpu_data()[i]) << "index " << i;
  // Another input: still the first forward's statistics, not its own.
  Blob<Dtype> other(2, 3, 4, 5);
  this->Fill(&other, Dtype(-0.5), Dtype(0.7));
  vector<Blob<Dtype>*> other_vec(1, &other);
  layer.Forward(other_vec, this->top_vec_);
  layer.set_recomputing(false);
  this->ExpectNormalized(other, this->top_, mean, var, 1e-5);
  for (int c = 0; c < 3; ++c)
    EXPECT_EQ(sums[c], layer.blobs()[0]->cpu_data()[c]);

  // With stored statistics nothing is reread (a rerun recomputes them
  // from the blobs).
  BatchNormLayer<Dtype> test(this->Param(TEST));
  test.SetUp(this->bottom_vec_, this->top_vec_);
  reread.clear();
  test.RerunReadsMemory(&reread);
  EXPECT_TRUE(reread.empty());
}

TYPED_TEST(BatchNormLayerTest, TestPhaseUsesStoredStatistics) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TEST));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  const double mean_sum[3] = {3, -1, 0.5}, var_sum[3] = {8, 2, 0.5};
  const double s = 2;
  for (int c = 0; c < 3; ++c) {
    layer.blobs()[0]->mutable_cpu_data()[c] = mean_sum[c];
    layer.blobs()[1]->mutable_cpu_data()[c] = var_sum[c];
  }
  layer.blobs()[2]->mutable_cpu_data()[0] = s;
  layer.Forward(this->bottom_vec_, this->top_vec_);
  vector<double> mean(3), var(3);
  for (int c = 0; c < 3; ++c) {
    mean[c] = mean_sum[c] / s;
    var[c] = var_sum[c] / s;
  }
  this->ExpectNormalized(this->bottom_, this->top_, mean, var, 1e-5);
  // TEST forward leaves the statistics alone.
  EXPECT_EQ(Dtype(2), layer.blobs()[2]->cpu_data()[0]);
  EXPECT_EQ(Dtype(3), layer.blobs()[0]->cpu_data()[0]);
  EXPECT_EQ(Dtype(8), layer.blobs()[1]->cpu_data()[0]);
}

TYPED_TEST(BatchNormLayerTest, ZeroNormalizerMeansZeroStatistics) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TEST));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  layer.blobs()[0]->mutable_cpu_data()[0] = 5;  // ignored: s == 0
  layer.Forward(this->bottom_vec_, this->top_vec_);
  this->ExpectNormalized(this->bottom_, this->top_, vector<double>(3, 0),
                         vector<double>(3, 0), 1e-5);
}

TYPED_TEST(BatchNormLayerTest, UseGlobalStatsOverridesPhase) {
  typedef TypeParam Dtype;
  // TRAIN with use_global_stats: stored statistics, no update.
  LayerParameter p = this->Param(TRAIN);
  p.mutable_batch_norm_param()->set_use_global_stats(true);
  BatchNormLayer<Dtype> global(p);
  global.SetUp(this->bottom_vec_, this->top_vec_);
  for (int c = 0; c < 3; ++c) {
    global.blobs()[0]->mutable_cpu_data()[c] = 1;
    global.blobs()[1]->mutable_cpu_data()[c] = 4;
  }
  global.blobs()[2]->mutable_cpu_data()[0] = 1;
  global.Forward(this->bottom_vec_, this->top_vec_);
  this->ExpectNormalized(this->bottom_, this->top_, vector<double>(3, 1),
                         vector<double>(3, 4), 1e-5);
  EXPECT_EQ(Dtype(1), global.blobs()[2]->cpu_data()[0]);
  // TEST without global stats: batch statistics and an update.
  LayerParameter q = this->Param(TEST);
  q.mutable_batch_norm_param()->set_use_global_stats(false);
  BatchNormLayer<Dtype> batch(q);
  batch.SetUp(this->bottom_vec_, this->top_vec_);
  batch.Forward(this->bottom_vec_, this->top_vec_);
  vector<double> mean, var;
  this->Stats(this->bottom_, &mean, &var);
  this->ExpectNormalized(this->bottom_, this->top_, mean, var, 1e-5);
  EXPECT_EQ(Dtype(1), batch.blobs()[2]->cpu_data()[0]);
}

TYPED_TEST(BatchNormLayerTest, GradientTrain) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientExhaustive(&layer, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(BatchNormLayerTest, GradientTrain2D) {
  typedef TypeParam Dtype;
  Blob<Dtype> bottom(vector<int>{5, 3});
  this->Fill(&bottom, Dtype(0.5), Dtype(1));
  vector<Blob<Dtype>*> bottom_vec(1, &bottom);
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientExhaustive(&layer, bottom_vec, this->top_vec_);
}

// With stored statistics y is affine in x; the statistics blobs are not
// learned (no gradient), so compare with dy / sqrt(var + eps) directly
// instead of the finite-difference checker, which would also perturb them.
TYPED_TEST(BatchNormLayerTest, GradientGlobalStats) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TEST));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  for (int c = 0; c < 3; ++c) {
    layer.blobs()[0]->mutable_cpu_data()[c] = c;
    layer.blobs()[1]->mutable_cpu_data()[c] = 1 + c;
  }
  layer.blobs()[2]->mutable_cpu_data()[0] = 0.5;
  layer.Forward(this->bottom_vec_, this->top_vec_);
  contract_test::FillTopDiffs(this->top_vec_);
  layer.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
  const double tol = sizeof(Dtype) == 4 ? 1e-5 : 1e-12;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int s = 0; s < 20; ++s) {
        const int i = (n * 3 + c) * 20 + s;
        const double var = (1 + c) / 0.5;
        EXPECT_NEAR(this->top_.cpu_diff()[i] / std::sqrt(var + double(1e-5f)),
                    this->bottom_.cpu_diff()[i], tol);
      }
  // A centred finite difference on one element agrees too.
  const Dtype h = 1e-2;
  Dtype* x = this->bottom_.mutable_cpu_data();
  const Dtype orig = x[7];
  x[7] = orig + h;
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const Dtype plus = this->top_.cpu_data()[7];
  x[7] = orig - h;
  layer.Forward(this->bottom_vec_, this->top_vec_);
  const Dtype minus = this->top_.cpu_data()[7];
  EXPECT_NEAR((plus - minus) / (2 * h),
              this->bottom_.cpu_diff()[7] / this->top_.cpu_diff()[7], 1e-3);
}

TYPED_TEST(BatchNormLayerTest, InPlace) {
  typedef TypeParam Dtype;
  CheckInPlaceMatches<Dtype>(this->Param(TRAIN), this->bottom_vec_);
  // Stored statistics (zero here) in TEST.
  CheckInPlaceMatches<Dtype>(this->Param(TEST), this->bottom_vec_);
}

TYPED_TEST(BatchNormLayerTest, BackwardReads) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> train(this->Param(TRAIN));
  EXPECT_EQ(kReadsNothing, train.Memory().backward_reads);
  EXPECT_TRUE(train.Memory().in_place);
  train.SetUp(this->bottom_vec_, this->top_vec_);
  CheckBackwardReads<Dtype>(&train, this->bottom_vec_, this->top_vec_);
  BatchNormLayer<Dtype> test(this->Param(TEST));
  test.SetUp(this->bottom_vec_, this->top_vec_);
  test.blobs()[1]->mutable_cpu_data()[0] = 3;
  test.blobs()[2]->mutable_cpu_data()[0] = 1;
  CheckBackwardReads<Dtype>(&test, this->bottom_vec_, this->top_vec_);
}

TYPED_TEST(BatchNormLayerTest, InternalBytes) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> train(this->Param(TRAIN));
  train.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ((this->bottom_.count() + 2 * 3) * sizeof(Dtype),
            train.InternalBytes());
  BatchNormLayer<Dtype> test(this->Param(TEST));
  test.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_EQ(2 * 3 * sizeof(Dtype), test.InternalBytes());
}

// Out of place on a bottom the net marks intact (Layer::
// set_bottom_stays_intact), BatchNorm keeps no copy of its output: its
// backward normalizes the bottom again, which it declares, and gives the
// bits of the copy it no longer keeps.
TYPED_TEST(BatchNormLayerTest, IntactBottomIsNormalizedAgain) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> reads(this->Param(TRAIN));
  reads.set_bottom_stays_intact(true);
  reads.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_TRUE(reads.reads_input());
  EXPECT_EQ(kReadsBottomData, reads.Memory().backward_reads);
  EXPECT_EQ(2 * 3 * sizeof(Dtype), reads.InternalBytes());
  EXPECT_EQ(&this->bottom_, reads.KeptOutput().input);
  EXPECT_EQ(nullptr, reads.KeptOutput().copy);
  CheckBackwardReads<Dtype>(&reads, this->bottom_vec_, this->top_vec_);
  GradientChecker<Dtype> checker(1e-2, 1e-3, 1701);
  checker.CheckGradientExhaustive(&reads, this->bottom_vec_, this->top_vec_);
  // The same bits as the copy: dx and the top, after a forward and a
  // backward of each.
  BatchNormLayer<Dtype> copies(this->Param(TRAIN));
  copies.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_FALSE(copies.reads_input());
  EXPECT_EQ(copies.normalized_output(), copies.KeptOutput().copy);
  vector<vector<Dtype> > results;
  for (BatchNormLayer<Dtype>* layer : {&reads, &copies}) {
    layer->Forward(this->bottom_vec_, this->top_vec_);
    contract_test::FillTopDiffs(this->top_vec_);
    layer->Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
    vector<Dtype> r(this->top_.cpu_data(),
                    this->top_.cpu_data() + this->top_.count());
    r.insert(r.end(), this->bottom_.cpu_diff(),
             this->bottom_.cpu_diff() + this->bottom_.count());
    results.push_back(r);
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  EXPECT_EQ(0, std::memcmp(results[0].data(), results[1].data(),
                           results[0].size() * sizeof(Dtype)));
  // In place, or with stored statistics, there is nothing to read again.
  BatchNormLayer<Dtype> in_place(this->Param(TRAIN));
  in_place.set_bottom_stays_intact(true);
  in_place.SetUp(this->bottom_vec_, this->bottom_vec_);
  EXPECT_FALSE(in_place.reads_input());
  BatchNormLayer<Dtype> global(this->Param(TEST));
  global.set_bottom_stays_intact(true);
  global.SetUp(this->bottom_vec_, this->top_vec_);
  EXPECT_FALSE(global.reads_input());
  EXPECT_EQ(kReadsNothing, global.Memory().backward_reads);
  // The read is real: a bottom overwritten between forward and backward
  // spoils the gradient.
  reads.Forward(this->bottom_vec_, this->top_vec_);
  contract_test::FillTopDiffs(this->top_vec_);
  caffe_set(this->bottom_.count(), std::numeric_limits<Dtype>::quiet_NaN(),
            this->bottom_.mutable_cpu_data());
  reads.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
  EXPECT_TRUE(std::isnan(this->bottom_.cpu_diff()[0]));
}

TYPED_TEST(BatchNormLayerTest, StatisticsAreNotLearned) {
  typedef TypeParam Dtype;
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(3, layer.layer_param().param_size());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(0.f, layer.layer_param().param(i).lr_mult());
    EXPECT_FALSE(layer.param_propagate_down(i));
  }
  // An old prototxt's non-zero lr_mult is forced to 0.
  LayerParameter p = this->Param(TRAIN);
  p.add_param()->set_lr_mult(1.f);
  p.add_param()->set_lr_mult(0.f);
  BatchNormLayer<Dtype> forced(p);
  forced.SetUp(this->bottom_vec_, this->top_vec_);
  ASSERT_EQ(3, forced.layer_param().param_size());
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(0.f, forced.layer_param().param(i).lr_mult());
  // Backward leaves the statistics' diffs untouched.
  contract_test::ZeroParamDiffs<Dtype>(&layer);
  layer.Forward(this->bottom_vec_, this->top_vec_);
  contract_test::FillTopDiffs(this->top_vec_);
  layer.Backward(this->top_vec_, vector<bool>(1, true), this->bottom_vec_);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(Dtype(0), layer.blobs()[i]->asum_diff());
}

TYPED_TEST(BatchNormLayerTest, Errors) {
  typedef TypeParam Dtype;
  // Stored statistics for 4 channels on a 3-channel bottom.
  LayerParameter p = this->Param(TEST);
  for (int b = 0; b < 3; ++b) {
    BlobProto* stored = p.add_blobs();
    const int n = b < 2 ? 4 : 1;
    stored->mutable_shape()->add_dim(n);
    for (int i = 0; i < n; ++i) stored->add_data(1.f);
  }
  BatchNormLayer<Dtype> mismatched(p);
  EXPECT_THROW(mismatched.SetUp(this->bottom_vec_, this->top_vec_), Error);
  // Two stored blobs instead of three.
  p.mutable_blobs()->RemoveLast();
  BatchNormLayer<Dtype> missing(p);
  EXPECT_THROW(missing.SetUp(this->bottom_vec_, this->top_vec_), Error);
  // Channels change after setup.
  BatchNormLayer<Dtype> layer(this->Param(TRAIN));
  layer.SetUp(this->bottom_vec_, this->top_vec_);
  Blob<Dtype> other(2, 4, 3, 3);
  vector<Blob<Dtype>*> other_vec(1, &other);
  EXPECT_THROW(layer.Forward(other_vec, this->top_vec_), Error);
  // Negative eps.
  LayerParameter q = this->Param(TRAIN);
  q.mutable_batch_norm_param()->set_eps(-1.f);
  BatchNormLayer<Dtype> bad_eps(q);
  EXPECT_THROW(bad_eps.SetUp(this->bottom_vec_, this->top_vec_), Error);
}

TYPED_TEST(BatchNormLayerTest, Registered) {
  typedef TypeParam Dtype;
  EXPECT_STREQ("BatchNorm",
               LayerRegistry<Dtype>::CreateLayer(this->Param(TRAIN))->type());
}

}  // namespace caffe
