// block_pool.hpp: the caching pool behind release: DYNAMIC.
//
// Contract:
//  * Take(bytes, owner) hands `owner` (a request index) a block of at least
//    `bytes` bytes: the smallest free block that fits (best fit), else a new
//    one from the memory resource.  It reports the block's previous owner,
//    whose buffer the binder then marks not readable if it still points
//    there.  Give(owner) puts the owner's block back on the free list.
//  * Blocks are shared handles: a SyncedMemory pointing into one keeps it
//    alive (its keeper), so dropping the pool (a re-plan) frees each old
//    block as soon as nothing points into it, never earlier.
//  * allocated_bytes(): bytes this pool allocated (free plus handed out);
//    live_bytes(): bytes of its blocks still alive anywhere, including old
//    ones a dropped pool left with memories -- what the pool really holds.
//    Steady-state iterations allocate nothing.
#ifndef CAFFE_MEM_BLOCK_POOL_HPP_
#define CAFFE_MEM_BLOCK_POOL_HPP_

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>

#include "caffe/memory_resource.hpp"

namespace caffe {
namespace mem {

class BlockPool {
 public:
  explicit BlockPool(MemoryResource* resource);

  // *previous_owner: the last owner of a reused block, -1 for a new one.
  std::shared_ptr<char> Take(size_t bytes, int owner, int* previous_owner);
  void Give(int owner);
  bool Holds(int owner) const { return held_.count(owner) > 0; }
  // Forgets every block (they live on while memories point into them).
  void Clear();

  size_t allocated_bytes() const { return allocated_bytes_; }
  size_t live_bytes() const { return *live_bytes_; }

 private:
  struct Held {
    std::shared_ptr<char> block;
    size_t bytes;
  };
  MemoryResource* resource_;
  std::multimap<size_t, std::shared_ptr<char> > free_;  // by size
  std::map<int, Held> held_;                           // owner -> block
  std::map<const char*, int> last_owner_;
  size_t allocated_bytes_ = 0;
  // Shared with every block's deleter, so it outlives Clear().
  std::shared_ptr<std::atomic<size_t> > live_bytes_;
};

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_BLOCK_POOL_HPP_
