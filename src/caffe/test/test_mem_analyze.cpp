// Analyze (mem/analyze.hpp) on synthetic graphs: no Net is built, so each
// rule -- lifetimes from the schedule and the backward declarations,
// in-place sharing, pins and their reasons, forward-only graphs, second
// lifetimes under recomputation, a layer's scratch one step at a time --
// is checked on a graph made for it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caffe/mem/analyze.hpp"
#include "caffe/mem/recompute_study.hpp"

namespace caffe {
namespace mem {
namespace {

// A chain: input -> L1 -> a -> L2 (in place on a) -> L3 -> b -> loss L4.
// Memories: each blob's data and diff of 100 bytes.
class Chain {
 public:
  Chain() {
    g.net_name = "chain";
    for (const char* name : {"input", "a", "b", "loss"}) AddBlob(name);
    g.blobs[0].pin = "net input";
    g.blobs[3].pin = "loss";
    AddLayer("L1", {0}, {1}, 1 /* reads bottom data */);
    AddLayer("L2", {1}, {1}, 2 /* reads top data */);
    g.layers[1].top_in_place[0] = true;
    AddLayer("L3", {1}, {2}, 1);
    AddLayer("L4", {2}, {3}, 1);
    g.layers[0].bottom_need_backward[0] = false;  // input gets no diff
  }
  std::vector<Step> Schedule() const {
    return MakeSchedule(MakeSegments(g.num_layers(), {}),
                        std::vector<bool>(g.num_layers(), true));
  }
  const Buffer* Find(const Analysis& a, const std::string& name,
                     int* request = nullptr) const {
    for (size_t i = 0; i < a.buffers.size(); ++i)
      if (a.buffers[i].name == name) {
        if (request) *request = static_cast<int>(i);
        return &a.buffers[i];
      }
    return nullptr;
  }
  NetGraph g;

 private:
  void AddBlob(const char* name) {
    GraphBlob b;
    b.name = name;
    b.data = static_cast<int>(g.memories.size());
    b.diff = b.data + 1;
    b.count_bytes = 100;
    g.memories.resize(g.memories.size() + 2);
    g.memories[b.data].bytes = g.memories[b.diff].bytes = 100;
    g.blobs.push_back(b);
  }
  void AddLayer(const char* name, std::vector<int> bottoms,
                std::vector<int> tops, int reads) {
    GraphLayer l;
    l.name = name;
    l.bottoms = bottoms;
    l.tops = tops;
    l.top_is_view.assign(tops.size(), false);
    l.top_in_place.assign(tops.size(), false);
    l.bottom_need_backward.assign(bottoms.size(), true);
    l.need_backward = true;
    l.backward_reads = reads;
    l.forward_cost = 1;
    g.layers.push_back(l);
  }
};

TEST(MemAnalyzeTest, LifetimesFollowTheScheduleAndDeclarations) {
  Chain c;
  const Analysis a = Analyze(c.g, c.Schedule(), AnalyzeOptions());
  ASSERT_EQ(a.buffers.size(), a.requests.size());
  // 4 layers: forward steps 0-3, backward of layer i at 7 - i.
  int r = -1;
  ASSERT_TRUE(c.Find(a, "a", &r));
  // 'a' (shared by L2 in place) is written at step 0 and read last by L2's
  // backward (reads its top data) at step 6 and L3's backward? L3 reads its
  // bottom data at step 5; L2 at 6.
  EXPECT_EQ(a.requests[r].first_step, 0);
  EXPECT_EQ(a.requests[r].last_step, 6);
  EXPECT_TRUE(a.requests[r].shareable);
  EXPECT_EQ(a.buffers[r].blob_ids, std::vector<int>({1}));
  // b's data: written at 2, read by L4 forward (3) and L4 backward (4).
  ASSERT_TRUE(c.Find(a, "b", &r));
  EXPECT_EQ(a.requests[r].first_step, 2);
  EXPECT_EQ(a.requests[r].last_step, 4);
  // b's diff: written by L4's backward (4), read by L3's backward (5).
  ASSERT_TRUE(c.Find(a, "b(diff)", &r));
  EXPECT_EQ(a.requests[r].first_step, 4);
  EXPECT_EQ(a.requests[r].last_step, 5);
}

TEST(MemAnalyzeTest, PinsCarryTheirReasons) {
  Chain c;
  AnalyzeOptions options;
  options.exclude_blob = {"b", "no_such_blob"};
  const Analysis a = Analyze(c.g, c.Schedule(), options);
  EXPECT_EQ(c.Find(a, "input")->pin_reason, "net input");
  EXPECT_EQ(c.Find(a, "loss")->pin_reason, "loss");
  EXPECT_EQ(c.Find(a, "b")->pin_reason, "exclude_blob");
  EXPECT_EQ(c.Find(a, "b(diff)")->pin_reason, "exclude_blob");
  // The loss's diff is read (L4's backward) before anything writes it.
  EXPECT_TRUE(c.Find(a, "loss(diff)")->pinned);
  EXPECT_FALSE(c.Find(a, "a")->pinned);
  options.exclude_blob.clear();
  options.kept_blobs = {1};
  const Analysis k = Analyze(c.g, c.Schedule(), options);
  EXPECT_EQ(c.Find(k, "a")->pin_reason, "kept by the caller");
  options.kept_blobs.clear();
  options.share_diff = false;
  const Analysis d = Analyze(c.g, c.Schedule(), options);
  EXPECT_EQ(c.Find(d, "b(diff)")->pin_reason, "share_diff: false");
}

TEST(MemAnalyzeTest, ForwardOnlyGraphsEndAtTheLastForwardRead) {
  Chain c;
  c.g.forward_only = true;
  const Analysis a = Analyze(c.g, c.Schedule(), AnalyzeOptions());
  int r = -1;
  ASSERT_TRUE(c.Find(a, "a", &r));
  EXPECT_EQ(a.requests[r].last_step, 2);  // L3's forward
  EXPECT_EQ(c.Find(a, "b(diff)"), nullptr);  // no diff is touched
}

TEST(MemAnalyzeTest, DeclaringLessShortensLifetimes) {
  // If L2's backward read nothing, 'a' would die at L3's backward (5).
  Chain c;
  c.g.layers[1].backward_reads = 0;
  const Analysis a = Analyze(c.g, c.Schedule(), AnalyzeOptions());
  int r = -1;
  ASSERT_TRUE(c.Find(a, "a", &r));
  EXPECT_EQ(a.requests[r].last_step, 5);
}

TEST(MemAnalyzeTest, KeptMemoryLivesFromForwardToBackward) {
  Chain c;
  c.g.memories.resize(c.g.memories.size() + 1);
  c.g.memories.back().bytes = 40;
  c.g.layers[2].kept = {static_cast<int>(c.g.memories.size()) - 1};
  const Analysis a = Analyze(c.g, c.Schedule(), AnalyzeOptions());
  // Kept memory comes first, named by its layer.
  ASSERT_FALSE(a.buffers.empty());
  EXPECT_EQ(a.buffers[0].name, "L3/kept0");
  EXPECT_EQ(a.buffers[0].layer_id, 2);
  EXPECT_EQ(a.requests[0].first_step, 2);
  EXPECT_EQ(a.requests[0].last_step, 5);
  EXPECT_EQ(a.requests[0].bytes, 40u);
}

TEST(MemAnalyzeTest, RecomputationGivesASecondLifetime) {
  Chain c;
  const RecomputeFacts f = StudyRecompute(c.g);
  // L2 is in place on memory L1 wrote, and L1 may run twice, so a cut
  // after L1 is blocked (L2 writes 'a' later); after L2 or L3 it is not.
  EXPECT_EQ(f.boundary_candidates, std::vector<int>({1, 2}));
  const std::vector<Segment> segments = MakeSegments(c.g.num_layers(), {2});
  const std::vector<Step> schedule = MakeSchedule(segments, f.recomputable);
  const Analysis a = Analyze(c.g, schedule, AnalyzeOptions());
  int first = -1, second = -1;
  ASSERT_TRUE(c.Find(a, "a", &first));
  ASSERT_TRUE(c.Find(a, "a@recompute", &second));
  EXPECT_EQ(a.buffers[second].lifetime, 1);
  EXPECT_LT(a.requests[first].last_step, a.requests[second].first_step);
}

TEST(MemAnalyzeTest, KeptMemoryARerunReadsKeepsOneLifetime) {
  // L1 and L2 are recomputed (cut after L2).  L1 keeps two memories: the
  // first its rerun writes again (a second lifetime), the second its rerun
  // reads (BatchNorm's statistics): one lifetime from the forward to the
  // backward, across the rerun.
  Chain c;
  const int fresh = static_cast<int>(c.g.memories.size());
  c.g.memories.resize(fresh + 2);
  c.g.memories[fresh].bytes = c.g.memories[fresh + 1].bytes = 40;
  c.g.layers[0].kept = {fresh, fresh + 1};
  c.g.layers[0].kept_reread = {false, true};
  const RecomputeFacts f = StudyRecompute(c.g);
  const std::vector<Step> schedule =
      MakeSchedule(MakeSegments(c.g.num_layers(), {2}), f.recomputable);
  const Analysis a = Analyze(c.g, schedule, AnalyzeOptions());
  int rewritten = -1, reread = -1, backward = -1;
  for (size_t s = 0; s < schedule.size(); ++s)
    if (schedule[s].layer == 0 && schedule[s].kind == Step::kBackward)
      backward = static_cast<int>(s);
  ASSERT_GE(backward, 0);
  ASSERT_TRUE(c.Find(a, "L1/kept0@recompute", &rewritten));
  ASSERT_TRUE(c.Find(a, "L1/kept1", &reread));
  EXPECT_FALSE(c.Find(a, "L1/kept1@recompute"));
  EXPECT_EQ(a.requests[reread].first_step, 0);
  EXPECT_EQ(a.requests[reread].last_step, backward);
  int first = -1;
  ASSERT_TRUE(c.Find(a, "L1/kept0", &first));
  EXPECT_LT(a.requests[first].last_step, a.requests[rewritten].first_step);
}

TEST(MemAnalyzeTest, NestedRecomputationGivesAThirdLifetime) {
  Chain c;
  const RecomputeFacts f = StudyRecompute(c.g);
  // Layers 0-2 recomputed, cut again after layer 1 (L2): that part runs a
  // third time, so 'a' (L1's top, L2 in place on it) lives three times.
  const std::vector<Step> schedule = MakeSchedule(
      MakeNestedSegments(c.g.num_layers(), {2}, {1}), f.recomputable);
  const Analysis a = Analyze(c.g, schedule, AnalyzeOptions());
  int first = -1, second = -1, third = -1;
  ASSERT_TRUE(c.Find(a, "a", &first));
  ASSERT_TRUE(c.Find(a, "a@recompute", &second));
  ASSERT_TRUE(c.Find(a, "a@recompute2", &third));
  EXPECT_EQ(a.buffers[second].lifetime, 1);
  EXPECT_EQ(a.buffers[third].lifetime, 2);
  EXPECT_LT(a.requests[first].last_step, a.requests[second].first_step);
  EXPECT_LT(a.requests[second].last_step, a.requests[third].first_step);
  // The group's run leaves 'a' after L3's backward read; the third run
  // starts with L1's rerun and ends with L2's backward.
  EXPECT_EQ(schedule[a.requests[second].last_step].layer, 2);
  EXPECT_EQ(schedule[a.requests[second].last_step].kind, Step::kBackward);
  EXPECT_EQ(schedule[a.requests[third].first_step].layer, 0);
  EXPECT_EQ(schedule[a.requests[third].first_step].run, 2);
  EXPECT_EQ(schedule[a.requests[third].last_step].layer, 1);
  EXPECT_EQ(schedule[a.requests[third].last_step].kind, Step::kBackward);
  // 'b' (L3's top) lies outside the nested part: two lifetimes only.
  EXPECT_TRUE(c.Find(a, "b@recompute"));
  EXPECT_FALSE(c.Find(a, "b@recompute2"));
}

// Gives layer `layer` a scratch memory of `bytes`; returns its index.
int AddScratch(Chain* c, int layer, size_t bytes) {
  c->g.memories.resize(c->g.memories.size() + 1);
  c->g.memories.back().bytes = bytes;
  c->g.layers[layer].scratch = static_cast<int>(c->g.memories.size()) - 1;
  return c->g.layers[layer].scratch;
}

TEST(MemAnalyzeTest, ScratchLivesOnlyDuringEachStepItsLayerRuns) {
  Chain c;
  const int m = AddScratch(&c, 2, 300);  // L3: forward 2, backward 5
  const Analysis a = Analyze(c.g, c.Schedule(), AnalyzeOptions());
  int fwd = -1, bwd = -1;
  ASSERT_TRUE(c.Find(a, "L3/scratch@2", &fwd));
  ASSERT_TRUE(c.Find(a, "L3/scratch@5", &bwd));
  for (int r : {fwd, bwd}) {
    EXPECT_TRUE(a.buffers[r].scratch);
    EXPECT_EQ(a.buffers[r].memory, m);
    EXPECT_EQ(a.buffers[r].layer_id, 2);
    EXPECT_EQ(a.requests[r].first_step, a.requests[r].last_step);
    EXPECT_TRUE(a.requests[r].shareable);
    EXPECT_EQ(a.requests[r].bytes, 300u);
  }
  EXPECT_EQ(a.requests[fwd].first_step, 2);
  EXPECT_EQ(a.requests[bwd].first_step, 5);
  // Counted once: the first lifetime is 0, later steps' are 1.
  EXPECT_EQ(a.buffers[fwd].lifetime, 0);
  EXPECT_EQ(a.buffers[bwd].lifetime, 1);
  // So the scratch adds bytes at its two steps only, never across the net.
  const Chain plain;
  const std::vector<size_t> with = LiveBytesPerStep(a.requests, 8);
  const std::vector<size_t> without = LiveBytesPerStep(
      Analyze(plain.g, plain.Schedule(), AnalyzeOptions()).requests, 8);
  for (int step = 0; step < 8; ++step) {
    const size_t extra = with[step] - without[step];
    if (step == 2 || step == 5) {
      EXPECT_GE(extra, 300u) << step;
      EXPECT_LE(extra, AlignUp(300)) << step;
    } else {
      EXPECT_EQ(extra, 0u) << step;
    }
  }
}

TEST(MemAnalyzeTest, ScratchFollowsForwardOnlyGraphsAndRecomputation) {
  Chain c;
  AddScratch(&c, 1, 64);  // L2
  c.g.forward_only = true;
  Analysis a = Analyze(c.g, c.Schedule(), AnalyzeOptions());
  EXPECT_TRUE(c.Find(a, "L2/scratch@1"));
  EXPECT_FALSE(c.Find(a, "L2/scratch@6"));  // no backward step runs
  c.g.forward_only = false;
  const RecomputeFacts f = StudyRecompute(c.g);
  const std::vector<Step> schedule =
      MakeSchedule(MakeSegments(c.g.num_layers(), {2}), f.recomputable);
  a = Analyze(c.g, schedule, AnalyzeOptions());
  int steps_with_scratch = 0;
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    if (!a.buffers[i].scratch) continue;
    ++steps_with_scratch;
    EXPECT_EQ(schedule[a.requests[i].first_step].layer, 1);
  }
  // Forward, recompute and backward of L2 each have their own.
  EXPECT_EQ(steps_with_scratch, 3);
  // A layer without scratch adds nothing.
  Chain plain;
  EXPECT_EQ(Analyze(plain.g, plain.Schedule(), AnalyzeOptions())
                .buffers.size() + 2,
            Analyze(c.g, c.Schedule(), AnalyzeOptions()).buffers.size());
}

}  // namespace
}  // namespace mem
}  // namespace caffe
