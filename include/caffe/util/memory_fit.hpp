// memory_fit.hpp: refuses a net, or a training run, that cannot fit in the
// host memory there is -- before its activations are allocated -- and says
// what would fit.
//
// Contract:
//  * MemoryNeed is what a net holds once it has run a full iteration, part
//    by part.  NetMemoryNeed(net) fills it from the net's shapes, without
//    allocating: parameters; their gradients when the net runs backward
//    (TRAIN, or force_backward); activations: the memory plan's total when
//    mem_param applies, else every blob's data and the diff of every blob
//    that needs backward, each distinct buffer once; layers' own buffers
//    (Layer::InternalBytes, less what the plan places) and, unless a
//    level-2 plan holds it, the shared workspace the layers' scratch
//    grows to (the largest Layer::ScratchMemory).  `held` is the part
//    already allocated (parameters filled at set-up, a bound plan), which
//    is already missing from the room.
//  * CheckMemoryFits(net, need, context) compares need.total() - need.held
//    with HostMemoryRoom() (host_memory_room.hpp).  When it does not fit
//    it throws caffe::Error: what the net needs, part by part; how much is
//    there and what limits it; and what would fit, each computed by the
//    planner on this net's own lifetimes: mem_param switched on (level 2),
//    a recompute budget (auto: BUDGET, memory_budget_mb), or the largest
//    batch at the current settings.  The batch is the first axis of the
//    first data (bottomless) layer's first top; a blob's buffers are taken
//    to grow with the batch when its first axis equals it, layers' own
//    buffers (masks, saved statistics, argmax) always -- true of the
//    convolutional nets Caffe trains, an estimate otherwise.
//  * Net::Init checks each net (before binding its plan); Solver checks
//    the whole run -- training net, test nets' activations, solver state --
//    before its first iteration.  Both are on the path users take from C++,
//    the caffe tool, pycaffe and matcaffe alike.
#ifndef CAFFE_UTIL_MEMORY_FIT_HPP_
#define CAFFE_UTIL_MEMORY_FIT_HPP_

#include <cstddef>
#include <string>

namespace caffe {

template <typename Dtype>
class Net;

struct MemoryNeed {
  size_t params = 0;         // parameter data
  size_t param_diffs = 0;    // parameter gradients (training)
  size_t solver_state = 0;   // history, moments and update scratch
  size_t activations = 0;    // this net's blobs (or its memory plan)
  size_t other_nets = 0;     // test nets' activations and layer buffers
  size_t layer_buffers = 0;  // layers' buffers outside the plan
  size_t held = 0;           // the part of the above already allocated
  size_t activations_held = 0;  // the part of `activations` allocated
  size_t total() const {
    return params + param_diffs + solver_state + activations + other_nets +
           layer_buffers;
  }
};

template <typename Dtype>
MemoryNeed NetMemoryNeed(const Net<Dtype>& net);

// While one is alive, a TRAIN net built on this thread counts `copies`
// blobs of solver state per learnable parameter in NetMemoryNeed: the
// Solver holds one while it builds its training net, so the net's own
// check (and what it suggests) already sees the solver's state.
class SolverStateScope {
 public:
  explicit SolverStateScope(int copies);
  ~SolverStateScope();

 private:
  int previous_;
};

// `context` opens the message, e.g. "net 'LeNet' (TRAIN)" or
// "training with solver 'lenet_solver.prototxt'".
template <typename Dtype>
void CheckMemoryFits(const Net<Dtype>& net, const MemoryNeed& need,
                     const std::string& context);

}  // namespace caffe

#endif  // CAFFE_UTIL_MEMORY_FIT_HPP_
