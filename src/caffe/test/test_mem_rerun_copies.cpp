// A layer that recomputation runs again before its backward skips, in its
// first forward, the copies it keeps only for backward
// (Layer::set_rerun_before_backward): BatchNorm's normalized output and an
// in-place Scale's copy of its input.  These tests prove the layers leave
// those copies unwritten and their outputs unchanged when told, that the
// net tells exactly the layers of recomputed segments during the forward
// only (and a nested part's layers during their group's rerun), and that
// training keeps the bits of a net without mem_param.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/filler.hpp"
#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/layers/scale_layer.hpp"
#include "caffe/step_hook.hpp"
#include "caffe/test/block_net_util.hpp"
#include "caffe/test/mem_trajectory_util.hpp"
#include "caffe/util/io.hpp"

namespace caffe {
namespace {

const float kUnwritten = 12345.f;

void FillGaussian(Blob<float>* blob) {
  FillerParameter p;
  p.set_std(1.f);
  GaussianFiller<float>(p).Fill(blob);
}

bool SameBits(const Blob<float>& a, const Blob<float>& b) {
  return a.count() == b.count() &&
         std::memcmp(a.cpu_data(), b.cpu_data(), a.count() * sizeof(float)) ==
             0;
}

bool AllEqual(const Blob<float>& blob, float value) {
  for (int i = 0; i < blob.count(); ++i)
    if (blob.cpu_data()[i] != value) return false;
  return true;
}

TEST(RerunCopiesTest, BatchNormSkipsItsNormalizedCopyOnly) {
  Blob<float> x(2, 3, 4, 5), told_top, plain_top;
  FillGaussian(&x);
  LayerParameter param;
  param.set_name("bn");
  param.set_type("BatchNorm");
  param.set_phase(TRAIN);
  BatchNormLayer<float> plain(param), told(param);
  plain.SetUp({&x}, {&plain_top});
  told.SetUp({&x}, {&told_top});
  plain.Forward({&x}, {&plain_top});
  Blob<float>& kept = const_cast<Blob<float>&>(*told.normalized_output());
  caffe_set(kept.count(), kUnwritten, kept.mutable_cpu_data());
  told.set_rerun_before_backward(true);
  told.Forward({&x}, {&told_top});
  EXPECT_TRUE(SameBits(plain_top, told_top));
  EXPECT_TRUE(AllEqual(kept, kUnwritten));
  // The statistics a rerun rereads are written as before.
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(SameBits(*plain.blobs()[i], *told.blobs()[i])) << i;
  // Told nothing, it keeps the copy: its output's bits.
  told.set_rerun_before_backward(false);
  told.Forward({&x}, {&told_top});
  EXPECT_TRUE(SameBits(*told.normalized_output(), told_top));
}

TEST(RerunCopiesTest, InPlaceScaleSkipsItsInputCopy) {
  Blob<float> x(2, 3, 4, 5), y;
  FillGaussian(&x);
  y.CopyFrom(x, false, true);
  LayerParameter param;
  param.set_name("sc");
  param.set_type("Scale");
  param.mutable_scale_param()->set_bias_term(true);
  param.mutable_scale_param()->mutable_filler()->set_type("gaussian");
  ScaleLayer<float> told(param);
  told.SetUp({&y}, {&y});
  const Blob<float>& copy = told.input_copy();
  ASSERT_EQ(x.count(), copy.count());
  Blob<float>& writable = const_cast<Blob<float>&>(copy);
  caffe_set(writable.count(), kUnwritten, writable.mutable_cpu_data());
  told.set_rerun_before_backward(true);
  told.Forward({&y}, {&y});
  EXPECT_TRUE(AllEqual(copy, kUnwritten));
  const std::vector<float> skipped(y.cpu_data(), y.cpu_data() + y.count());
  y.CopyFrom(x, false, true);
  told.set_rerun_before_backward(false);
  told.Forward({&y}, {&y});
  EXPECT_TRUE(SameBits(x, copy));
  EXPECT_EQ(0, std::memcmp(skipped.data(), y.cpu_data(),
                           skipped.size() * sizeof(float)));
}

// Records, at each step the net runs, whether it told the step's layer.
class RecordFlag : public StepHook {
 public:
  explicit RecordFlag(const Net<float>* net) : net_(net) {}
  void BeforeStep(int step) override {
    const mem::Step& s = net_->memory()->schedule()[step];
    if (s.kind == mem::Step::kBackward) return;
    told_[step] = net_->layers()[s.layer]->rerun_before_backward();
  }
  const std::map<int, bool>& told() const { return told_; }

 private:
  const Net<float>* net_;
  std::map<int, bool> told_;
};

// A layer is told at a forward or recompute step exactly when the
// schedule runs it again later (SQRT and CHEAP: the first forward of a
// recomputed segment; SQRT levels 2: also a nested part's first rerun).
void ExpectToldWhereRunAgain(const NetParameter& net, const char* text,
                             bool nested) {
  NetParameter param = net;
  MemoryOptimizationParameter mp;
  ReadProtoFromTextString(std::string("optimize_train: true ") + text,
                          "mem_param", &mp);
  *param.mutable_mem_param() = mp;
  Net<float> planned(param);
  const NetMemory& memory = *planned.memory();
  ASSERT_TRUE(memory.recomputes()) << text;
  bool any_nested = false;
  for (const mem::Segment& seg : memory.segments())
    any_nested = any_nested || seg.nested;
  ASSERT_EQ(nested, any_nested) << text;
  RecordFlag record(&planned);
  planned.AddStepHook(&record);
  planned.Forward();
  // Told only around its steps: clear again once Forward returns, though
  // the recomputation that runs the layers again has not come yet.
  for (const auto& layer : planned.layers())
    EXPECT_FALSE(layer->rerun_before_backward())
        << text << ", after Forward: " << layer->type();
  planned.Backward();
  const std::vector<mem::Step>& schedule = memory.schedule();
  int told = 0, recompute_told = 0;
  for (size_t k = 0; k < schedule.size(); ++k) {
    if (schedule[k].kind == mem::Step::kBackward) continue;
    bool again = false;
    for (size_t j = k + 1; j < schedule.size(); ++j)
      again = again || (schedule[j].layer == schedule[k].layer &&
                        schedule[j].kind == mem::Step::kRecompute);
    auto it = record.told().find(static_cast<int>(k));
    ASSERT_TRUE(it != record.told().end()) << text << " step " << k;
    EXPECT_EQ(again, it->second)
        << text << " step " << k << " of layer "
        << planned.layer_names()[schedule[k].layer];
    told += again;
    recompute_told += again && schedule[k].kind == mem::Step::kRecompute;
  }
  EXPECT_GT(told, 0) << text;
  EXPECT_EQ(nested, recompute_told > 0) << text;
  for (const auto& layer : planned.layers())
    EXPECT_FALSE(layer->rerun_before_backward())
        << text << ", after Backward: " << layer->type();
  // The skipped copies were never read: training keeps its bits.
  ExpectBitIdentical(TrainTrajectory(net, nullptr, 3),
                     TrainTrajectory(net, &mp, 3),
                     std::string("copies skipped under ") + text);
}

TEST(RerunCopiesTest, TheNetTellsTheLayersThatRunAgain) {
  ExpectToldWhereRunAgain(BlockNet(6), "recompute { auto: SQRT }", false);
  ExpectToldWhereRunAgain(BlockNet(6), "recompute { auto: CHEAP }", false);
  ExpectToldWhereRunAgain(BlockNet(18, 3),
                          "recompute { auto: SQRT levels: 2 }", true);
}

}  // namespace
}  // namespace caffe
