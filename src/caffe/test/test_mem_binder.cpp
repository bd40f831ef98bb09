// The binder (mem/binder.hpp) on synthetic plans, through the counting
// memory-resource double: no Net is built.  Checks what it allocates
// (one arena, pool blocks reused across iterations), that binding again
// frees old memory only once nothing points into it (no use after free),
// the guard's marks, check mode's NaN fill and detaching.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "caffe/mem/binder.hpp"
#include "caffe/syncedmem.hpp"
#include "caffe/test/counting_memory_resource.hpp"

namespace caffe {
namespace mem {
namespace {

// Three float buffers of 256 bytes over 4 steps: A lives 0-1, B 2-3 and
// C 1-2, so A and B may share bytes and C overlaps both in time.
class BinderTest : public ::testing::Test {
 protected:
  BinderTest() {
    for (int i = 0; i < 3; ++i)
      memory_.emplace_back(new SyncedMemory(256));
    const int life[3][2] = {{0, 1}, {2, 3}, {1, 2}};
    for (int i = 0; i < 3; ++i) {
      BufferRequest r;
      r.name = std::string(1, static_cast<char>('A' + i));
      r.bytes = 256;
      r.first_step = life[i][0];
      r.last_step = life[i][1];
      requests_.push_back(r);
      Buffer b;
      b.memory = i;
      b.name = r.name;
      buffers_.push_back(b);
    }
  }
  Binding Make(bool dynamic, bool check = false) {
    Binding b;
    for (auto& m : memory_) b.memory.push_back(m.get());
    b.lifetime.assign(3, 0);
    b.kept.assign(3, false);
    b.requests = requests_;
    b.plan = MakePlan(requests_, 2);
    b.num_steps = 4;
    NetGraph g;
    for (const char* n : {"A", "B", "C"}) {
      GraphBlob blob;
      blob.name = n;
      g.blobs.push_back(blob);
    }
    for (int i = 0; i < 3; ++i) buffers_[i].blob_ids = {i};
    b.notes = MakeGuardNotes(g, buffers_);
    b.all_memories = b.memory;
    b.dynamic = dynamic;
    b.check = check;
    b.element_bytes = sizeof(float);
    return b;
  }
  void RunIteration(Binder* binder) {
    for (int s = 0; s < 4; ++s) {
      binder->BeforeStep(s);
      for (size_t i = 0; i < requests_.size(); ++i)
        if (requests_[i].first_step == s) {
          float* p = static_cast<float*>(memory_[i]->mutable_cpu_data());
          for (int k = 0; k < 64; ++k) p[k] = static_cast<float>(i + 1);
        }
      binder->AfterStep(s);
    }
  }
  // Declared first so it outlives the memories whose keepers free into it.
  CountingMemoryResource resource_;
  std::vector<std::unique_ptr<SyncedMemory> > memory_;
  std::vector<BufferRequest> requests_;
  std::vector<Buffer> buffers_;
};

TEST_F(BinderTest, StaticAllocatesOneArenaAndMarksOverlaps) {
  Binder binder(&resource_);
  binder.Bind(Make(false));
  EXPECT_EQ(resource_.allocations(), 1);
  EXPECT_EQ(binder.arena_bytes(), 512u);  // A and B share 256 bytes
  for (auto& m : memory_) EXPECT_TRUE(resource_.IsLive(m->cpu_ptr()));
  EXPECT_EQ(memory_[0]->cpu_ptr(), memory_[1]->cpu_ptr());
  // Nothing has computed them yet.
  for (auto& m : memory_) EXPECT_FALSE(m->readable());
  RunIteration(&binder);
  // B's first use (step 2) took A's bytes: A is marked, B and C are not.
  EXPECT_FALSE(memory_[0]->readable());
  EXPECT_NE(memory_[0]->NotReadableMessage().find("reused by 'B'"),
            std::string::npos);
  EXPECT_TRUE(memory_[1]->readable());
  EXPECT_TRUE(memory_[2]->readable());
  EXPECT_EQ(resource_.allocations(), 1);  // running allocates nothing
  EXPECT_TRUE(resource_.errors().empty());
}

TEST_F(BinderTest, DynamicPoolReusesBlocksAcrossIterations) {
  Binder binder(&resource_);
  binder.Bind(Make(true));
  EXPECT_EQ(resource_.allocations(), 0);  // nothing ahead
  RunIteration(&binder);
  // A's block goes back after step 1 and B takes it at step 2.
  EXPECT_EQ(resource_.allocations(), 2);
  EXPECT_EQ(binder.pool_live_bytes(), 512u);
  RunIteration(&binder);
  RunIteration(&binder);
  EXPECT_EQ(resource_.allocations(), 2);  // steady state allocates nothing
  EXPECT_FALSE(memory_[0]->readable());   // B holds A's last block
  EXPECT_TRUE(memory_[1]->readable());
  EXPECT_TRUE(resource_.errors().empty());
}

TEST_F(BinderTest, BindingAgainFreesOldMemoryOnlyWhenUnused) {
  for (bool dynamic : {false, true}) {
    CountingMemoryResource resource;
    {
      Binder binder(&resource);
      binder.Bind(Make(dynamic));
      RunIteration(&binder);
      const int before = resource.allocations();
      // A view of A taken now (what a numpy array holds) keeps its bytes.
      std::shared_ptr<void> view = memory_[1]->cpu_keeper();
      const void* view_ptr = memory_[1]->cpu_ptr();
      for (int replan = 0; replan < 100; ++replan) {
        binder.Bind(Make(dynamic));
        RunIteration(&binder);
      }
      EXPECT_TRUE(resource.IsLive(view_ptr)) << "dynamic " << dynamic;
      view.reset();
      EXPECT_FALSE(resource.IsLive(view_ptr)) << "dynamic " << dynamic;
      // Bounded: one binding's worth lives, whatever the number of binds.
      EXPECT_LE(resource.live_bytes(), 512u) << "dynamic " << dynamic;
      EXPECT_GT(resource.allocations(), before);
      for (auto& m : memory_) EXPECT_TRUE(resource.IsLive(m->cpu_ptr()));
    }
    for (auto& m : memory_) m->release_cpu_data();
    EXPECT_EQ(resource.live_bytes(), 0u) << "dynamic " << dynamic;
    EXPECT_FALSE(resource.WrittenAfterFree()) << "dynamic " << dynamic;
    EXPECT_TRUE(resource.errors().empty()) << "dynamic " << dynamic;
  }
}

TEST_F(BinderTest, CheckModeFillsDeadBuffersWithNaNThroughTheResource) {
  Binder binder(&resource_);
  binder.Bind(Make(false, true));
  binder.BeforeStep(0);
  static_cast<float*>(memory_[0]->mutable_cpu_data())[0] = 1;
  binder.AfterStep(0);
  binder.BeforeStep(1);
  binder.AfterStep(1);  // A's last step
  EXPECT_GE(resource_.nan_fills(), 1);
  EXPECT_FALSE(memory_[0]->readable());
  EXPECT_NE(memory_[0]->NotReadableMessage().find("NaN"), std::string::npos);
  const float* raw = static_cast<const float*>(memory_[0]->cpu_ptr());
  EXPECT_TRUE(std::isnan(raw[0]));
}

TEST_F(BinderTest, DetachKeepsTheValueOutsideThePlan) {
  Binder binder(&resource_);
  binder.Bind(Make(false));
  binder.BeforeStep(0);
  static_cast<float*>(memory_[0]->mutable_cpu_data())[3] = 7;
  binder.AfterStep(0);
  binder.Detach(memory_[0].get());
  EXPECT_EQ(binder.detached_bytes(), 256u);
  EXPECT_NE(memory_[0]->cpu_ptr(), memory_[1]->cpu_ptr());
  RunIteration(&binder);
  // B wrote its own bytes; A was not marked and kept its value.
  EXPECT_TRUE(memory_[0]->readable());
  EXPECT_EQ(static_cast<const float*>(memory_[0]->cpu_data())[3], 1.0f);
  EXPECT_TRUE(resource_.errors().empty());
}

#ifdef USE_CUDA
// A GPU plan places SyncedMemory's GPU heads: one arena, shared bytes, the
// guard's marks by GPU address, the CPU heads left alone.  The resource is
// the host double saying on_device(): GPU heads already placed need no
// CUDA call, so this runs without a GPU.
TEST_F(BinderTest, AGpuPlanPlacesGpuHeadsAndMarksThem) {
  CountingMemoryResource device(true);
  Binder binder(&device);
  binder.Bind(Make(false));
  EXPECT_EQ(device.allocations(), 1);
  for (auto& m : memory_) {
    EXPECT_TRUE(device.IsLive(m->gpu_ptr()));
    EXPECT_EQ(m->cpu_ptr(), nullptr);
    EXPECT_FALSE(m->readable());
    EXPECT_THROW(m->gpu_data(), BlobNotReadable);
  }
  EXPECT_EQ(memory_[0]->gpu_ptr(), memory_[1]->gpu_ptr());
  for (int s = 0; s < 4; ++s) {
    binder.BeforeStep(s);
    for (size_t i = 0; i < requests_.size(); ++i)
      if (requests_[i].first_step == s) {
        float* p = static_cast<float*>(memory_[i]->mutable_gpu_data());
        EXPECT_EQ(p, memory_[i]->gpu_ptr());
        for (int k = 0; k < 64; ++k) p[k] = static_cast<float>(i + 1);
      }
    binder.AfterStep(s);
  }
  EXPECT_FALSE(memory_[0]->readable());
  EXPECT_THROW(memory_[0]->gpu_data(), BlobNotReadable);
  EXPECT_NE(memory_[0]->NotReadableMessage().find("reused by 'B'"),
            std::string::npos);
  EXPECT_EQ(static_cast<const float*>(memory_[1]->gpu_data())[0], 2.0f);
  EXPECT_EQ(memory_[0]->cpu_ptr(), nullptr);  // no host copy was made
  EXPECT_TRUE(device.errors().empty());
  // The memories outlive `device`: let go of its arena first.
  for (auto& m : memory_) m->release_gpu_data();
}

TEST_F(BinderTest, AGpuDynamicPoolHandsGpuHeadsItsBlocks) {
  CountingMemoryResource device(true);
  Binder binder(&device);
  binder.Bind(Make(true));
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (int s = 0; s < 4; ++s) {
      binder.BeforeStep(s);
      for (size_t i = 0; i < requests_.size(); ++i)
        if (requests_[i].first_step == s) {
          EXPECT_TRUE(device.IsLive(memory_[i]->gpu_ptr()));
          static_cast<float*>(memory_[i]->mutable_gpu_data())[0] = 1.0f;
        }
      binder.AfterStep(s);
    }
  }
  EXPECT_EQ(device.allocations(), 2);
  EXPECT_FALSE(memory_[0]->readable());
  EXPECT_TRUE(memory_[1]->readable());
  EXPECT_TRUE(device.errors().empty());
  for (auto& m : memory_) m->release_gpu_data();
}
#endif  // USE_CUDA

}  // namespace
}  // namespace mem
}  // namespace caffe
