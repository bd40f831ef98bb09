#include "caffe/util/scratch.hpp"

#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/parallel.hpp"

namespace caffe {

void* ScratchOrShared(const SyncedMemory* scratch, bool gpu, size_t bytes) {
  // Placed with a keeper: the plan's bytes for the running step.
  if (scratch && scratch->size() >= bytes && scratch->placed_keeper(gpu) &&
      scratch->placed_ptr(gpu))
    return scratch->placed_ptr(gpu);
#ifdef USE_CUDA
  if (gpu) return SharedDeviceWorkspace(bytes);
#endif
  return SharedWorkspace(bytes);
}

void Scratch::Resize(size_t bytes) {
  if (bytes == 0 || (current_ && current_->size() >= bytes)) return;
  retired_[1] = retired_[0];
  retired_[0] = current_;
  current_ = std::make_shared<SyncedMemory>(bytes);
}

}  // namespace caffe
