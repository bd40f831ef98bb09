#include "caffe/mem/block_pool.hpp"

#include "caffe/mem/planner.hpp"

namespace caffe {
namespace mem {

BlockPool::BlockPool(MemoryResource* resource)
    : resource_(resource), live_bytes_(std::make_shared<std::atomic<size_t> >(0)) {}

std::shared_ptr<char> BlockPool::Take(size_t bytes, int owner,
                                      int* previous_owner) {
  bytes = AlignUp(bytes);
  *previous_owner = -1;
  std::shared_ptr<char> block;
  auto it = free_.lower_bound(bytes);
  if (it != free_.end()) {
    bytes = it->first;
    block = it->second;
    free_.erase(it);
    auto last = last_owner_.find(block.get());
    if (last != last_owner_.end()) *previous_owner = last->second;
  } else {
    MemoryResource* resource = resource_;
    std::shared_ptr<std::atomic<size_t> > live = live_bytes_;
    char* p = static_cast<char*>(resource->Allocate(bytes));
    block = std::shared_ptr<char>(p, [resource, live, bytes](char* q) {
      resource->Free(q, bytes);
      *live -= bytes;
    });
    *live_bytes_ += bytes;
    allocated_bytes_ += bytes;
  }
  last_owner_[block.get()] = owner;
  held_[owner] = Held{block, bytes};
  return block;
}

void BlockPool::Give(int owner) {
  auto it = held_.find(owner);
  if (it == held_.end()) return;
  free_.emplace(it->second.bytes, it->second.block);
  held_.erase(it);
}

void BlockPool::Clear() {
  free_.clear();
  held_.clear();
  last_owner_.clear();
  allocated_bytes_ = 0;
}

}  // namespace mem
}  // namespace caffe
