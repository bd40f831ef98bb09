// test_layer_contract_util.hpp: checks that a layer keeps its memory
// declarations (layer.hpp), shared by the layer tests.
//
// Contract:
//  * CheckBackwardReads runs forward + backward twice, the second time with
//    every bottom/top data blob the layer does not declare in BackwardReads
//    overwritten by NaN between forward and backward (a blob that is both a
//    bottom and a top, in place, is poisoned only when neither is declared).
//    Bottom diffs (where propagate_down) and parameter diffs must match
//    exactly; the bottoms' data is restored afterwards.  The random seed is
//    reset before each forward, so layers that draw (Dropout) repeat.
//  * CheckInPlaceMatches runs a layer out of place and a second instance
//    with top[0] == bottom[0] (same parameters), and compares top data,
//    bottom[0] diff and parameter diffs.
#ifndef CAFFE_TEST_LAYER_CONTRACT_UTIL_HPP_
#define CAFFE_TEST_LAYER_CONTRACT_UTIL_HPP_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace contract_test {

// Deterministic, non-trivial top diffs.
template <typename Dtype>
void FillTopDiffs(const vector<Blob<Dtype>*>& top) {
  for (size_t t = 0; t < top.size(); ++t) {
    Dtype* diff = top[t]->mutable_cpu_diff();
    for (int i = 0; i < top[t]->count(); ++i)
      diff[i] = Dtype(0.1) * ((i * 7 + 3 * static_cast<int>(t)) % 11) -
                Dtype(0.45);
  }
}

template <typename Dtype>
void ZeroParamDiffs(Layer<Dtype>* layer) {
  for (auto& p : layer->blobs())
    caffe_set(p->count(), Dtype(0), p->mutable_cpu_diff());
}

template <typename Dtype>
void PoisonData(Blob<Dtype>* blob) {
  caffe_set(blob->count(), std::numeric_limits<Dtype>::quiet_NaN(),
            blob->mutable_cpu_data());
}

// Runs one forward/backward; with poison, undeclared inputs become NaN
// between the two.  Returns bottom diffs then param diffs, concatenated.
template <typename Dtype>
vector<Dtype> RunOnce(Layer<Dtype>* layer, const vector<Blob<Dtype>*>& bottom,
                      const vector<Blob<Dtype>*>& top,
                      const vector<bool>& propagate_down,
                      const vector<vector<Dtype> >& bottom_data, bool poison,
                      unsigned int seed) {
  for (size_t b = 0; b < bottom.size(); ++b) {
    caffe_copy(bottom[b]->count(), bottom_data[b].data(),
               bottom[b]->mutable_cpu_data());
  }
  Caffe::set_random_seed(seed);
  layer->Forward(bottom, top);
  FillTopDiffs(top);
  ZeroParamDiffs(layer);
  if (poison) {
    const int reads = layer->Memory().backward_reads;
    vector<Blob<Dtype>*> declared;
    if (reads & kReadsBottomData)
      declared.insert(declared.end(), bottom.begin(), bottom.end());
    if (reads & kReadsTopData)
      declared.insert(declared.end(), top.begin(), top.end());
    vector<Blob<Dtype>*> all(bottom);
    all.insert(all.end(), top.begin(), top.end());
    for (auto* blob : all)
      if (std::find(declared.begin(), declared.end(), blob) == declared.end())
        PoisonData(blob);
  }
  layer->Backward(top, propagate_down, bottom);
  vector<Dtype> out;
  for (size_t b = 0; b < bottom.size(); ++b) {
    if (!propagate_down[b]) continue;
    const Dtype* d = bottom[b]->cpu_diff();
    out.insert(out.end(), d, d + bottom[b]->count());
  }
  for (auto& p : layer->blobs()) {
    const Dtype* d = p->cpu_diff();
    out.insert(out.end(), d, d + p->count());
  }
  return out;
}

// The layer must already be set up on bottom/top.
template <typename Dtype>
void CheckBackwardReads(Layer<Dtype>* layer,
                        const vector<Blob<Dtype>*>& bottom,
                        const vector<Blob<Dtype>*>& top,
                        vector<bool> propagate_down = vector<bool>(),
                        unsigned int seed = 1701) {
  if (propagate_down.empty()) propagate_down.assign(bottom.size(), true);
  vector<vector<Dtype> > data(bottom.size());
  for (size_t b = 0; b < bottom.size(); ++b)
    data[b].assign(bottom[b]->cpu_data(),
                   bottom[b]->cpu_data() + bottom[b]->count());
  const vector<Dtype> clean =
      RunOnce(layer, bottom, top, propagate_down, data, false, seed);
  const vector<Dtype> poisoned =
      RunOnce(layer, bottom, top, propagate_down, data, true, seed);
  // Give the caller its bottoms back unpoisoned.
  for (size_t b = 0; b < bottom.size(); ++b)
    caffe_copy(bottom[b]->count(), data[b].data(),
               bottom[b]->mutable_cpu_data());
  ASSERT_EQ(clean.size(), poisoned.size());
  ASSERT_GT(clean.size(), 0u);
  for (size_t i = 0; i < clean.size(); ++i) {
    ASSERT_FALSE(std::isnan(clean[i])) << "index " << i;
    EXPECT_EQ(clean[i], poisoned[i])
        << "layer " << layer->type() << " reads undeclared data (index "
        << i << ", BackwardReads " << layer->Memory().backward_reads << ")";
  }
}

// Both layers are created from param; the in-place one gets the out-of-place
// one's parameter values.  bottom[0] is copied, so the caller's blob keeps
// its data.
template <typename Dtype>
void CheckInPlaceMatches(const LayerParameter& param,
                         const vector<Blob<Dtype>*>& bottom,
                         Dtype tolerance = 0, unsigned int seed = 1701) {
  shared_ptr<Layer<Dtype> > ref = LayerRegistry<Dtype>::CreateLayer(param);
  shared_ptr<Layer<Dtype> > inpl = LayerRegistry<Dtype>::CreateLayer(param);
  ASSERT_TRUE(ref->Memory().in_place) << ref->type();
  Blob<Dtype> ref_top;
  vector<Blob<Dtype>*> ref_tops(1, &ref_top);
  Caffe::set_random_seed(seed);
  ref->SetUp(bottom, ref_tops);
  Blob<Dtype> shared;
  shared.CopyFrom(*bottom[0], false, true);
  vector<Blob<Dtype>*> inpl_bottom(bottom);
  inpl_bottom[0] = &shared;
  vector<Blob<Dtype>*> inpl_tops(1, &shared);
  inpl->SetUp(inpl_bottom, inpl_tops);
  ASSERT_EQ(ref->blobs().size(), inpl->blobs().size());
  for (size_t i = 0; i < ref->blobs().size(); ++i)
    inpl->blobs()[i]->CopyFrom(*ref->blobs()[i]);

  vector<bool> propagate_down(bottom.size(), true);
  Caffe::set_random_seed(seed);
  ref->Forward(bottom, ref_tops);
  FillTopDiffs(ref_tops);
  ZeroParamDiffs(ref.get());
  ref->Backward(ref_tops, propagate_down, bottom);
  // Extra bottoms are shared by both runs: keep their diffs from this one.
  vector<vector<Dtype> > extra_diffs;
  for (size_t b = 1; b < bottom.size(); ++b)
    extra_diffs.emplace_back(bottom[b]->cpu_diff(),
                             bottom[b]->cpu_diff() + bottom[b]->count());

  Caffe::set_random_seed(seed);
  inpl->Forward(inpl_bottom, inpl_tops);
  ASSERT_EQ(ref_top.count(), shared.count());
  for (int i = 0; i < shared.count(); ++i)
    EXPECT_NEAR(ref_top.cpu_data()[i], shared.cpu_data()[i], tolerance)
        << "top data " << i;
  FillTopDiffs(inpl_tops);
  ZeroParamDiffs(inpl.get());
  inpl->Backward(inpl_tops, propagate_down, inpl_bottom);
  for (int i = 0; i < shared.count(); ++i)
    EXPECT_NEAR(bottom[0]->cpu_diff()[i], shared.cpu_diff()[i], tolerance)
        << "bottom diff " << i;
  for (size_t b = 1; b < bottom.size(); ++b) {
    for (int i = 0; i < bottom[b]->count(); ++i)
      EXPECT_NEAR(extra_diffs[b - 1][i], bottom[b]->cpu_diff()[i], tolerance)
          << "bottom " << b << " diff " << i;
  }
  for (size_t p = 0; p < ref->blobs().size(); ++p) {
    for (int i = 0; i < ref->blobs()[p]->count(); ++i)
      EXPECT_NEAR(ref->blobs()[p]->cpu_diff()[i],
                  inpl->blobs()[p]->cpu_diff()[i], tolerance)
          << "param " << p << " diff " << i;
  }
}

}  // namespace contract_test
}  // namespace caffe

#endif  // CAFFE_TEST_LAYER_CONTRACT_UTIL_HPP_
