// memory_contract.hpp: what a layer declares about its memory use.
//
// Contract: one MemoryContract per layer type (Layer::Memory), holding for
// every shape.  Its own header so that the memory engine (mem/analyze.cpp,
// which never sees a Layer) reads the same bits the layers declare.
#ifndef CAFFE_MEMORY_CONTRACT_HPP_
#define CAFFE_MEMORY_CONTRACT_HPP_

namespace caffe {

// Bits for MemoryContract::backward_reads.
enum BackwardReadsBits {
  kReadsNothing = 0,
  kReadsBottomData = 1,
  kReadsTopData = 2,
};

// A layer's memory contract: facts about its memory use that hold for
// every shape, declared once per layer type (Layer::Memory).
struct MemoryContract {
  // BackwardReadsBits: the data Backward reads besides top diffs, the
  // layer's parameters and its kept memory.
  int backward_reads = kReadsBottomData | kReadsTopData;
  // top[i] may be the same blob as bottom[i].
  bool in_place = false;
  // The tops view the bottoms' memory (Split, Flatten, Reshape): the
  // planner treats them as one buffer.
  bool top_views_bottom = false;
  // Forward may run a second time before Backward (recomputation).  False
  // for layers whose forward changes state a second run would change again
  // (recurrent hidden state, user code); their outputs are kept instead.
  // Layers without bottoms (data) never run twice whatever this says.
  bool may_run_twice = true;
  // May read the previous layer's kept output instead of keeping a copy of
  // its own input (Scale after an in-place BatchNorm); see KeptOutput.
  bool borrows_previous_output = false;
  // Backward only copies top 0's gradient into this bottom's (Eltwise SUM
  // with unit coefficients) or sums the tops' gradients into it, top 0's
  // first (Split): the bottom's diff may be top 0's diff memory, one
  // buffer instead of two, with the same bits.  -1: no such bottom.  The
  // net turns it on under mem_param (Layer::set_alias_bottom_diff).
  int diff_alias_bottom = -1;
  // Forward writes each element of top 0 only after reading the same
  // element of bottom k, for every k < top_overwrites_bottoms, whatever
  // memory the blobs have: the plan may then put top 0 exactly over such a
  // bottom's memory when this step is the bottom's last read (in place by
  // the plan rather than by the prototxt).  0: never.
  int top_overwrites_bottoms = 0;
  // Forward and Backward index in 64 bits, so the layer's bottoms and tops
  // may hold more than INT_MAX elements (issue 13, item 5).  Layer::SetUp
  // and Layer::Forward refuse such a blob at a layer that does not declare
  // this, naming the layer and the blob, before any 32-bit index can wrap.
  bool counts_over_int_max = false;
};

}  // namespace caffe

#endif  // CAFFE_MEMORY_CONTRACT_HPP_
