// scratch.hpp: a layer's per-call scratch (Layer::ScratchMemory) and the
// thread's shared workspace behind one call.
//
// Contract:
//  * ScratchOrShared(scratch, gpu, bytes) returns at least `bytes` on the
//    given device: the scratch's placed bytes while a memory plan has them
//    placed (only during the layer's own step; the binder takes them back
//    after it), otherwise the calling thread's shared workspace
//    (SharedWorkspace, or SharedDeviceWorkspace on the GPU).  Nothing in
//    either survives the call that asked for it.
//  * Scratch holds a layer's scratch memory.  Resize only grows it, as a
//    blob's capacity only grows: shapes that shrink keep the memory the
//    plan knows.  A layer reshapes inside its own Forward, mid-pass, while
//    the plan still names the old memory, so a replaced memory is kept
//    alive (the last two) until later passes have planned again.
#ifndef CAFFE_UTIL_SCRATCH_HPP_
#define CAFFE_UTIL_SCRATCH_HPP_

#include <cstddef>
#include <memory>

#include "caffe/syncedmem.hpp"

namespace caffe {

void* ScratchOrShared(const SyncedMemory* scratch, bool gpu, size_t bytes);

class Scratch {
 public:
  // At least `bytes` from now on (null while nothing was ever needed).
  void Resize(size_t bytes);
  SyncedMemory* get() const { return current_.get(); }

 private:
  std::shared_ptr<SyncedMemory> current_;
  std::shared_ptr<SyncedMemory> retired_[2];
};

}  // namespace caffe

#endif  // CAFFE_UTIL_SCRATCH_HPP_
