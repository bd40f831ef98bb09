// Tests for BlockedAccumulate (util/dnnl_accumulate.hpp): for every layout
// oneDNN's convolutions hand back (blocked weights, padded blocks, grouped
// weights, blocked activations, plain), user += result must give exactly
// the bits of oneDNN's own reorder with a sum post-op, for any thread
// count; layouts it does not handle must be left to that reorder.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#ifdef USE_DNNL
#include <oneapi/dnnl/dnnl.hpp>

#include "caffe/util/dnnl_accumulate.hpp"
#include "caffe/util/parallel.hpp"
#endif

namespace caffe {
namespace {

#ifdef USE_DNNL

using dnnl::memory;
using Tag = memory::format_tag;

struct Case {
  const char* name;
  memory::dims dims;
  Tag blocked;
  Tag plain;
};

std::vector<float> RandomValues(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// oneDNN's answer: plain += blocked through a reorder with a sum post-op.
std::vector<float> ByReorder(const memory::desc& from,
                             const std::vector<float>& from_values,
                             const memory::desc& to,
                             std::vector<float> to_values) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  dnnl::post_ops ops;
  ops.append_sum(1.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  dnnl::reorder r(dnnl::reorder::primitive_desc(eng, from, eng, to, attr));
  memory src(from, eng, const_cast<float*>(from_values.data()));
  memory dst(to, eng, to_values.data());
  r.execute(stream, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
  stream.wait();
  return to_values;
}

TEST(BlockedAccumulateTest, SameBitsAsOneDnnReorderWithSum) {
  const std::vector<Case> cases = {
      {"3x3 weights", {64, 32, 3, 3}, Tag::ABcd16b16a, Tag::oihw},
      {"1x1 weights", {256, 128, 1, 1}, Tag::ABcd16b16a, Tag::oihw},
      {"padded blocks", {40, 20, 3, 3}, Tag::ABcd16b16a, Tag::oihw},
      {"transposed blocks", {48, 32, 3, 3}, Tag::BAcd16a16b, Tag::oihw},
      {"first layer", {64, 3, 7, 7}, Tag::Acdb16a, Tag::oihw},
      {"grouped", {2, 32, 16, 3, 3}, Tag::gOIhw16i16o, Tag::goihw},
      {"activations", {2, 20, 5, 7}, Tag::aBcd16b, Tag::nchw},
      {"plain", {3, 5, 4, 2}, Tag::nchw, Tag::nchw},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const memory::desc from(c.dims, memory::data_type::f32, c.blocked);
    const memory::desc to(c.dims, memory::data_type::f32, c.plain);
    const std::vector<float> from_values =
        RandomValues(from.get_size() / sizeof(float), 1);
    const std::vector<float> to_values =
        RandomValues(to.get_size() / sizeof(float), 2);
    const std::vector<float> expected =
        ByReorder(from, from_values, to, to_values);
    const std::unique_ptr<BlockedAccumulate> acc =
        BlockedAccumulate::Make(from, to);
    ASSERT_TRUE(acc != nullptr);
    for (int threads : {1, 2, 3}) {
      const int before = ParallelThreads();
      SetParallelThreads(threads);
      std::vector<float> got = to_values;
      acc->Run(from_values.data(), got.data());
      SetParallelThreads(before);
      ASSERT_EQ(got.size(), expected.size());
      EXPECT_EQ(0, std::memcmp(got.data(), expected.data(),
                               got.size() * sizeof(float)))
          << threads << " threads";
    }
    // Every element changed: nothing was skipped.
    std::vector<float> once = to_values;
    acc->Run(from_values.data(), once.data());
    size_t unchanged = 0;
    for (size_t i = 0; i < once.size(); ++i) {
      if (once[i] == to_values[i]) ++unchanged;
    }
    EXPECT_EQ(0u, unchanged);
  }
}

TEST(BlockedAccumulateTest, LeavesOtherLayoutsToOneDnn) {
  const memory::desc plain({64, 32, 3, 3}, memory::data_type::f32, Tag::oihw);
  // Different logical shapes.
  EXPECT_TRUE(BlockedAccumulate::Make(
                  memory::desc({64, 32, 1, 1}, memory::data_type::f32,
                               Tag::oihw),
                  plain) == nullptr);
  // Another data type.
  EXPECT_TRUE(BlockedAccumulate::Make(
                  memory::desc({64, 32, 3, 3}, memory::data_type::bf16,
                               Tag::oihw),
                  plain) == nullptr);
  // A layout oneDNN has not fixed yet.
  EXPECT_TRUE(BlockedAccumulate::Make(
                  memory::desc({64, 32, 3, 3}, memory::data_type::f32,
                               Tag::any),
                  plain) == nullptr);
}

#else  // !USE_DNNL

TEST(BlockedAccumulateTest, SameBitsAsOneDnnReorderWithSum) {
  GTEST_SKIP() << "built without USE_DNNL (libdnnl-dev not found), so there "
                  "are no oneDNN layouts to convert";
}

#endif  // USE_DNNL

}  // namespace
}  // namespace caffe
