// Tests for step_record.hpp, the layer-by-layer records the GPU step tests
// compare: on the CPU, two runs of one net record the same steps and
// agree; FirstDeparture names the first blob out of tolerance (a relative
// error, NaN, a different size or step), and passes rounding-sized noise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "caffe/test/model_zoo_util.hpp"
#include "caffe/test/step_record.hpp"

namespace caffe {
namespace {

std::vector<Produced> LenetRecord() {
  NetParameter net = ZooTrainVal(ZooModels()[0], 4);  // LeNet
  net.mutable_state()->set_phase(TRAIN);
  return Record(Caffe::CPU, net, 2);
}

TEST(StepRecordTest, TwoRunsOfANetRecordTheSameSteps) {
  const std::vector<Produced> a = LenetRecord();
  const std::vector<Produced> b = LenetRecord();
  ASSERT_FALSE(a.empty());
  EXPECT_EQ("", FirstDeparture(a, b));
  // Both iterations, forward tops and backward gradients, in run order.
  EXPECT_EQ(a.front().iteration, 0);
  EXPECT_EQ(a.back().iteration, 1);
  EXPECT_NE(a.front().where.find("forward top"), std::string::npos);
  EXPECT_NE(a.back().where.find("backward"), std::string::npos);
}

TEST(StepRecordTest, FirstDepartureNamesTheFirstBlobOutOfTolerance) {
  const std::vector<Produced> want = LenetRecord();
  // The first backward parameter gradient, whose values are small: a 1%
  // error in it is found, though far below 1e-3 in absolute terms.
  size_t k = 0;
  while (want[k].where.find("param diff") == std::string::npos) ++k;
  std::vector<Produced> got = want;
  for (float& v : got[k].values) v *= 1.01f;
  const std::string found = FirstDeparture(got, want);
  EXPECT_NE(found.find(want[k].where), std::string::npos) << found;
  EXPECT_NE(found.find("relative L2 error"), std::string::npos) << found;

  // Rounding-sized noise passes.
  got = want;
  for (float& v : got[k].values) v *= 1.0f + 1e-6f;
  EXPECT_EQ("", FirstDeparture(got, want));

  // NaN anywhere is out of tolerance.
  got = want;
  got[k].values[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(FirstDeparture(got, want).find(want[k].where), std::string::npos);

  // A missing value, a different step, fewer records.
  got = want;
  got[k].values.pop_back();
  EXPECT_NE(FirstDeparture(got, want).find("values on the GPU"),
            std::string::npos);
  got = want;
  got[k].where = "somewhere else";
  EXPECT_NE(FirstDeparture(got, want).find("the GPU ran somewhere else"),
            std::string::npos);
  got = want;
  got.pop_back();
  EXPECT_NE(FirstDeparture(got, want).find("recorded"), std::string::npos);
}

// Forcing a run onto another's path localizes a departure: LeNet whose
// ReLU leaks (negative slope 0.5) against plain LeNet.  Unforced, what
// follows the ReLU departs too; forced, only the ReLU's own records do
// (its top in forward, its bottom's gradient in backward), in every
// iteration, since every other layer computes from the plain run's inputs.
TEST(StepRecordTest, AForcedRunDepartsOnlyWhereALayerDiffers) {
  const std::vector<Produced> want = LenetRecord();
  NetParameter leaky = ZooTrainVal(ZooModels()[0], 4);
  leaky.mutable_state()->set_phase(TRAIN);
  int relus = 0;
  for (LayerParameter& l : *leaky.mutable_layer()) {
    if (l.type() != "ReLU") continue;
    l.mutable_relu_param()->set_negative_slope(0.5f);
    ++relus;
  }
  ASSERT_EQ(relus, 1);
  const std::vector<Produced> unforced = Record(Caffe::CPU, leaky, 2);
  const std::vector<Produced> forced = Record(Caffe::CPU, leaky, 2, &want);
  ASSERT_EQ(forced.size(), want.size());
  const std::vector<size_t> parted = Departures(forced, want);
  ASSERT_EQ(parted.size(), 4u) << FirstDeparture(forced, want);
  for (size_t k : parted)
    EXPECT_NE(want[k].where.find("(ReLU)"), std::string::npos)
        << want[k].where;
  std::vector<size_t> unforced_parted = Departures(unforced, want);
  EXPECT_GT(unforced_parted.size(), parted.size());
  bool beyond_relu = false;
  for (size_t k : unforced_parted)
    beyond_relu |= want[k].where.find("(ReLU)") == std::string::npos;
  EXPECT_TRUE(beyond_relu);
}

}  // namespace
}  // namespace caffe
