// dnnl_common.hpp: shared oneDNN plumbing for the DNNL engine files (only
// included by .cpp files built with USE_DNNL; it pulls in dnnl.hpp).
//
// Contract:
//  * DnnlEngine(): the process's one CPU engine (created on first use).
//  * DnnlStream(): an in-order CPU stream for the calling thread.
//  * DnnlOperand: one tensor argument of a primitive as the user holds it
//    (plain layout) and as the primitive wants it.  When the two differ,
//    the primitive's copy lives in the caller's workspace at `offset`, and a
//    reorder converts on the way in (inputs) or out (outputs).  An output
//    made with `accumulate` always goes through the workspace and the
//    user's tensor receives user += result: by BlockedAccumulate
//    (dnnl_accumulate.hpp) where it handles the layouts, else by a reorder
//    with a sum post-op.
//  * DnnlWorkspaceLayout hands out 64-byte aligned offsets.
#ifndef CAFFE_UTIL_DNNL_COMMON_HPP_
#define CAFFE_UTIL_DNNL_COMMON_HPP_

#ifdef USE_DNNL

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <memory>
#include <unordered_map>

#include "caffe/util/dnnl_accumulate.hpp"

namespace caffe {

dnnl::engine& DnnlEngine();
dnnl::stream& DnnlStream();

struct DnnlWorkspaceLayout {
  size_t size = 0;
  // Reserves bytes and returns their offset.
  size_t Take(size_t bytes) {
    const size_t offset = size;
    size += (bytes + 63) / 64 * 64;
    return offset;
  }
};

struct DnnlOperand {
  dnnl::memory::desc user;
  dnnl::memory::desc prim;
  bool reordered = false;
  size_t offset = 0;
  dnnl::reorder conversion;
  std::shared_ptr<BlockedAccumulate> accumulation;

  // Input: user -> prim.  Output: prim -> user (accumulating if asked).
  void Init(const dnnl::memory::desc& user_desc,
            const dnnl::memory::desc& prim_desc, bool is_input,
            DnnlWorkspaceLayout* layout, bool accumulate = false);
  // The memory the primitive reads or writes.  For an input that needs a
  // reorder this runs the reorder into the workspace first.
  dnnl::memory Bind(const void* user_ptr, char* workspace,
                    bool is_input) const;
  // For an output that needs a reorder: copies the workspace result to the
  // user's tensor (adding when the operand accumulates).
  void Finish(const dnnl::memory& prim_mem, void* user_ptr) const;
};

// Scratchpad memory for a primitive created with scratchpad_mode::user.
dnnl::memory DnnlScratchpad(const dnnl::memory::desc& desc, char* workspace,
                            size_t offset);

}  // namespace caffe

#endif  // USE_DNNL
#endif  // CAFFE_UTIL_DNNL_COMMON_HPP_
