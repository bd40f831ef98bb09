// A layer that recomputation runs again before its backward skips, in its
// first forward, the copies it keeps only for backward
// (Layer::set_rerun_before_backward): BatchNorm's normalized output and an
// in-place Scale's copy of its input.  These tests prove the layers leave
// those copies unwritten and their outputs unchanged when told, that the
// net tells exactly the layers of recomputed segments during the forward
// only, and that training keeps the bits of a net without mem_param.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/filler.hpp"
#include "caffe/layers/batch_norm_layer.hpp"
#include "caffe/layers/scale_layer.hpp"
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

// Records, per layer, whether the net told it during its forward.
class RecordFlag : public Net<float>::Callback {
 public:
  explicit RecordFlag(Net<float>* net)
      : net_(net), told_(net->layers().size(), -1) {}
  void run(int layer) override {
    told_[layer] = net_->layers()[layer]->rerun_before_backward() ? 1 : 0;
  }
  const std::vector<int>& told() const { return told_; }

 private:
  Net<float>* net_;
  std::vector<int> told_;
};

TEST(RerunCopiesTest, TheNetTellsTheLayersOfRecomputedSegments) {
  for (const char* mode : {"SQRT", "CHEAP"}) {
    NetParameter param = BlockNet(6);
    MemoryOptimizationParameter mp;
    ReadProtoFromTextString(std::string("optimize_train: true recompute { "
                                        "auto: ") + mode + " }",
                            "mem_param", &mp);
    *param.mutable_mem_param() = mp;
    Net<float> net(param);
    const NetMemory& memory = *net.memory();
    ASSERT_TRUE(memory.recomputes()) << mode;
    RecordFlag* record = new RecordFlag(&net);
    net.add_after_forward(std::shared_ptr<Net<float>::Callback>(record));
    net.Forward();
    int told = 0;
    for (size_t i = 0; i < net.layers().size(); ++i) {
      const int id = static_cast<int>(i);
      const bool expected =
          memory.segments()[memory.SegmentOf(id)].recompute &&
          memory.recomputable(id);
      EXPECT_EQ(expected ? 1 : 0, record->told()[i])
          << mode << " " << net.layer_names()[i];
      told += expected;
      // Told only during that forward.
      EXPECT_FALSE(net.layers()[i]->rerun_before_backward());
    }
    EXPECT_GT(told, 0) << mode;
    // The skipped copies were never read: training keeps its bits.
    ExpectBitIdentical(TrainTrajectory(BlockNet(6), nullptr, 3),
                       TrainTrajectory(BlockNet(6), &mp, 3),
                       std::string("copies skipped under ") + mode);
  }
}

}  // namespace
}  // namespace caffe
