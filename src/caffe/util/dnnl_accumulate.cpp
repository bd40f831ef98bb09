#include "caffe/util/dnnl_accumulate.hpp"

#ifdef USE_DNNL

#include <algorithm>

#include "caffe/util/elementwise.hpp"
#include "caffe/util/parallel.hpp"

namespace caffe {

namespace {

// Per dimension d, the offset of index i: its block's position times the
// dimension's outer stride, plus its place inside each inner block of d.
// False when the descriptor is not one this module handles.
bool OffsetTables(const dnnl_memory_desc_t& md,
                  std::vector<std::vector<long>>* tables) {
  if (md.format_kind != dnnl_blocked || md.data_type != dnnl_f32 ||
      md.extra.flags != 0) {
    return false;
  }
  const dnnl_blocking_desc_t& b = md.format_desc.blocking;
  const int n = md.ndims;
  // mult[k]: the elements spanned by one step of inner block k.
  std::vector<long> mult(b.inner_nblks, 1);
  for (int k = b.inner_nblks - 2; k >= 0; --k) {
    mult[k] = mult[k + 1] * b.inner_blks[k + 1];
  }
  tables->assign(n, std::vector<long>());
  for (int d = 0; d < n; ++d) {
    if (md.padded_offsets[d] != 0 || md.dims[d] <= 0) return false;
    long block = 1;
    for (int k = 0; k < b.inner_nblks; ++k) {
      if (b.inner_idxs[k] == d) block *= b.inner_blks[k];
    }
    std::vector<long>& t = (*tables)[d];
    t.resize(md.dims[d]);
    for (long i = 0; i < md.dims[d]; ++i) {
      long offset = (i / block) * b.strides[d];
      long rest = i % block;
      for (int k = b.inner_nblks - 1; k >= 0; --k) {
        if (b.inner_idxs[k] != d) continue;
        offset += (rest % b.inner_blks[k]) * mult[k];
        rest /= b.inner_blks[k];
      }
      t[i] = offset;
    }
  }
  return true;
}

// The largest offset the tables reach must lie inside the tensor.
bool InsideExtent(const dnnl::memory::desc& desc,
                  const std::vector<std::vector<long>>& tables) {
  long last = desc.data.offset0;
  for (const std::vector<long>& t : tables) {
    long most = 0;
    for (long v : t) {
      if (v < 0) return false;
      most = std::max(most, v);
    }
    last += most;
  }
  return last < static_cast<long>(desc.get_size() / sizeof(float));
}

}  // namespace

std::unique_ptr<BlockedAccumulate> BlockedAccumulate::Make(
    const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  const dnnl_memory_desc_t& f = from.data;
  const dnnl_memory_desc_t& t = to.data;
  if (f.ndims != t.ndims || f.ndims <= 0) return nullptr;
  for (int d = 0; d < f.ndims; ++d) {
    if (f.dims[d] != t.dims[d]) return nullptr;
  }
  std::vector<std::vector<long>> from_tables, to_tables;
  if (!OffsetTables(f, &from_tables) || !OffsetTables(t, &to_tables) ||
      !InsideExtent(from, from_tables) || !InsideExtent(to, to_tables)) {
    return nullptr;
  }
  std::unique_ptr<BlockedAccumulate> acc(new BlockedAccumulate);
  acc->from_base_ = f.offset0;
  acc->to_base_ = t.offset0;
  // A dimension of size 1 adds offset 0 (index 0 is the first block's
  // first place), so only the longer ones are iterated.
  for (int d = 0; d < f.ndims; ++d) {
    if (f.dims[d] == 1) continue;
    acc->sizes_.push_back(f.dims[d]);
    acc->from_offsets_.push_back(from_tables[d]);
    acc->to_offsets_.push_back(to_tables[d]);
  }
  return acc;
}

void BlockedAccumulate::Run(const float* from, float* to) const {
  const int n = static_cast<int>(sizes_.size());
  if (n == 0) {
    to[to_base_] += from[from_base_];
    return;
  }
  long inner = 1;
  for (int d = 1; d < n; ++d) inner *= sizes_[d];
  ParallelFor(sizes_[0], GrainFor(inner), [&](long begin, long end) {
    const long last = sizes_[n - 1];
    const long* from_last = from_offsets_[n - 1].data();
    const long* to_last = to_offsets_[n - 1].data();
    for (long i0 = begin; i0 < end; ++i0) {
      const long from0 = from_base_ + from_offsets_[0][i0];
      const long to0 = to_base_ + to_offsets_[0][i0];
      if (n == 1) {
        to[to0] += from[from0];
        continue;
      }
      // An odometer over the middle dimensions 1 .. n-2; the last one is
      // the inner loop.
      long index[DNNL_MAX_NDIMS] = {0};
      for (;;) {
        long f = from0, t = to0;
        for (int d = 1; d < n - 1; ++d) {
          f += from_offsets_[d][index[d]];
          t += to_offsets_[d][index[d]];
        }
        for (long i = 0; i < last; ++i) to[t + to_last[i]] += from[f + from_last[i]];
        int d = n - 2;
        while (d >= 1 && ++index[d] == sizes_[d]) {
          index[d] = 0;
          --d;
        }
        if (d < 1) break;
      }
    }
  });
}

}  // namespace caffe

#endif  // USE_DNNL
