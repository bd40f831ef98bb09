// No ParallelFor body allocates (util/parallel.hpp): an allocation failure
// inside an OpenMP region would terminate the process instead of raising a
// caffe error.  This binary's operator new counts allocations made while a
// thread runs a body; the tests run every parallel layer (LRN, both
// regions) forward and backward, and the memory planner's level-2 passes,
// and require the count to stay zero.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer_factory.hpp"
#include "caffe/layers/lrn_layer.hpp"
#include "caffe/mem/planner.hpp"
#include "caffe/util/math_functions.hpp"
#include "caffe/util/parallel.hpp"

namespace {
std::atomic<long> g_body_allocations{0};
}  // namespace

// Every form that plain operator delete may free is replaced together
// (the nothrow form too: std::stable_sort's buffer comes from it), so new
// and delete always pair malloc with free -- sanitizers check that.
void* operator new(std::size_t bytes) {
  if (caffe::InParallelBody()) ++g_body_allocations;
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  if (caffe::InParallelBody()) ++g_body_allocations;
  return std::malloc(bytes ? bytes : 1);
}
void* operator new[](std::size_t bytes) { return operator new(bytes); }
void* operator new[](std::size_t bytes, const std::nothrow_t& t) noexcept {
  return operator new(bytes, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace caffe {
namespace {

class ParallelBodiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = ParallelThreads();
    SetParallelThreads(2);
  }
  void TearDown() override { SetParallelThreads(threads_); }
  int threads_ = 1;
};

// The counter sees allocations in bodies, so the tests below can fail.
TEST_F(ParallelBodiesTest, CounterSeesAnAllocatingBody) {
  const long before = g_body_allocations;
  ParallelFor(64, 1, [](long begin, long end) {
    std::vector<float> scratch(end - begin);
    (void)scratch;
  });
  EXPECT_GT(g_body_allocations - before, 0);
  const long outside = g_body_allocations;
  std::vector<float> not_in_a_body(16);
  EXPECT_EQ(g_body_allocations, outside);
}

TEST_F(ParallelBodiesTest, PartsIndexTheirRanges) {
  const int parts = ParallelParts(1000, 1);
  ASSERT_GE(parts, 1);
  std::vector<int> seen(parts, 0);
  std::atomic<long> covered{0};
  ParallelForParts(1000, 1, [&](int part, long begin, long end) {
    seen[part] += 1;
    covered += end - begin;
  });
  EXPECT_EQ(covered, 1000);
  for (int count : seen) EXPECT_LE(count, 1);
}

template <typename Dtype>
void RunLRN(LRNParameter_NormRegion region) {
  LayerParameter param;
  param.mutable_lrn_param()->set_norm_region(region);
  param.mutable_lrn_param()->set_local_size(3);
  LRNLayer<Dtype> layer(param);
  Blob<Dtype> bottom(4, 5, 7, 6), top;
  caffe_rng_gaussian<Dtype>(bottom.count(), Dtype(0), Dtype(1),
                            bottom.mutable_cpu_data());
  vector<Blob<Dtype>*> bottoms{&bottom}, tops{&top};
  layer.SetUp(bottoms, tops);
  caffe_set(top.count(), Dtype(1), top.mutable_cpu_diff());
  const long before = g_body_allocations;
  layer.Forward(bottoms, tops);
  layer.Backward(tops, vector<bool>{true}, bottoms);
  EXPECT_EQ(g_body_allocations - before, 0)
      << "LRN allocated inside a parallel body";
}

TEST_F(ParallelBodiesTest, LRNAcrossChannelsAllocatesNothingInBodies) {
  RunLRN<float>(LRNParameter_NormRegion_ACROSS_CHANNELS);
  RunLRN<double>(LRNParameter_NormRegion_ACROSS_CHANNELS);
}

TEST_F(ParallelBodiesTest, LRNWithinChannelAllocatesNothingInBodies) {
  RunLRN<float>(LRNParameter_NormRegion_WITHIN_CHANNEL);
  RunLRN<double>(LRNParameter_NormRegion_WITHIN_CHANNEL);
}

// The element-wise and per-channel layers on the parallel loop.
template <typename Dtype>
void RunLayer(const char* type, bool in_place) {
  LayerParameter param;
  param.set_type(type);
  param.set_name(type);
  shared_ptr<Layer<Dtype> > layer = LayerRegistry<Dtype>::CreateLayer(param);
  Blob<Dtype> bottom(4, 16, 32, 32), own_top;
  caffe_rng_gaussian<Dtype>(bottom.count(), Dtype(0), Dtype(1),
                            bottom.mutable_cpu_data());
  Blob<Dtype>* top = in_place ? &bottom : &own_top;
  vector<Blob<Dtype>*> bottoms{&bottom}, tops{top};
  layer->SetUp(bottoms, tops);
  caffe_set(top->count(), Dtype(1), top->mutable_cpu_diff());
  const long before = g_body_allocations;
  layer->Forward(bottoms, tops);
  layer->Backward(tops, vector<bool>{true}, bottoms);
  EXPECT_EQ(g_body_allocations - before, 0)
      << type << " allocated inside a parallel body";
}

TEST_F(ParallelBodiesTest, ElementwiseLayersAllocateNothingInBodies) {
  for (const char* type :
       {"ReLU", "BatchNorm", "Scale", "Bias", "Sigmoid", "TanH", "Dropout"}) {
    for (bool in_place : {false, true}) {
      RunLayer<float>(type, in_place);
      RunLayer<double>(type, in_place);
    }
  }
}

// Level 2 planning runs its greedy passes on the parallel loop, each in
// memory sized before the loop.
TEST_F(ParallelBodiesTest, PlanningAllocatesNothingInBodies) {
  std::vector<mem::BufferRequest> reqs;
  for (int i = 0; i < 200; ++i) {
    mem::BufferRequest r;
    r.name = "b";
    r.bytes = 64 * (1 + (i * 37) % 50);
    r.first_step = (i * 13) % 60;
    r.last_step = r.first_step + (i * 7) % 30;
    r.scratch = i % 5 == 0;
    reqs.push_back(r);
  }
  const long before = g_body_allocations;
  const mem::Plan plan = mem::MakePlan(reqs, 2);
  EXPECT_EQ(mem::CheckPlan(reqs, plan), "");
  EXPECT_EQ(g_body_allocations - before, 0)
      << "planning allocated inside a parallel body";
}

}  // namespace
}  // namespace caffe
