// release: DYNAMIC with an input shape that changes every batch: each
// change plans again, and memory must stay bounded (old pools are freed
// once nothing points into them) while the report counts what the pool
// really holds, old blocks included.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "caffe/net.hpp"
#include "caffe/syncedmem.hpp"
#include "caffe/util/io.hpp"
#include "caffe/util/math_functions.hpp"

namespace caffe {
namespace {

const char* kNet = R"(
name: "reshaping"
mem_param { optimize_train: true release: DYNAMIC }
layer { name: "x" type: "Input" top: "x"
        input_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } } }
layer { name: "c1" type: "Convolution" bottom: "x" top: "c1"
        convolution_param { num_output: 4 kernel_size: 3 pad: 1
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "r1" type: "ReLU" bottom: "c1" top: "c1" }
layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2"
        convolution_param { num_output: 4 kernel_size: 3 pad: 1
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "p" type: "Pooling" bottom: "c2" top: "p"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "loss" type: "Reduction" bottom: "p" top: "loss"
        loss_weight: 1 }
)";

TEST(MemDynamicReshapeTest, HundredShapeChangesStayBounded) {
  NetParameter param;
  ReadProtoFromTextString(kNet, "reshaping", &param);
  param.mutable_state()->set_phase(TRAIN);
  Net<float> net(param);
  const int batches[] = {2, 5, 3, 7, 4};
  size_t in_use_after_first_cycle = 0, pool_after_first_cycle = 0;
  size_t max_in_use = 0, max_pool = 0;
  for (int change = 0; change < 100; ++change) {
    Blob<float>* x = net.input_blobs()[0];
    x->Reshape(batches[change % 5], 3, 8 + change % 3, 8);
    caffe_set(x->count(), 0.5f, x->mutable_cpu_data());
    net.ClearParamDiffs();
    net.ForwardBackward();
    ASSERT_GT(net.memory()->pool_bytes(), 0u);
    // The report counts at least what the current pool allocated.
    EXPECT_GE(net.memory()->pool_bytes(),
              net.memory()->pool_allocated_bytes());
    if (change == 14) {
      in_use_after_first_cycle = HostBytesInUse();
      pool_after_first_cycle = net.memory()->pool_bytes();
    }
    if (change >= 15) {
      max_in_use = std::max(max_in_use, HostBytesInUse());
      max_pool = std::max(max_pool, net.memory()->pool_bytes());
    }
  }
  // Shapes cycle, so after the first cycles nothing may grow: a pool kept
  // per re-plan would add its bytes 85 more times.
  EXPECT_LE(max_pool, 2 * pool_after_first_cycle);
  EXPECT_LE(max_in_use, in_use_after_first_cycle + 2 * pool_after_first_cycle)
      << "host memory grew over shape changes";
}

}  // namespace
}  // namespace caffe
