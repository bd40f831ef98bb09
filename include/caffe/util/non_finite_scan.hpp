// non_finite_scan.hpp: finds the first layer whose output or gradient is not
// finite (NaN or infinite), for a training loss that became non-finite.
//
// Contract:
//  * FindNonFiniteSource(net) runs the net's last iteration again -- every
//    layer with bottoms forward (data layers keep the batch they produced;
//    their tops are never shared under mem_param), then backward -- with a
//    step hook (step_hook.hpp) that checks, right after each step, the
//    layer's top data (forward, recompute) or the diffs it wrote (backward:
//    bottoms that need backward, its parameters).  Reading happens inside
//    the pass, so it works with mem_param's shared memory too.
//  * Returns "layer '<name>' (type <T>) <forward output|backward gradient>
//    '<blob>' ..." for the first non-finite step in the schedule's order, or
//    a sentence saying the rerun stayed finite (random layers such as
//    Dropout draw new numbers, so a rare NaN may not repeat).
//  * Param diffs are cleared before the rerun; afterwards they hold the
//    rerun's gradients.
#ifndef CAFFE_UTIL_NON_FINITE_SCAN_HPP_
#define CAFFE_UTIL_NON_FINITE_SCAN_HPP_

#include <string>

#include "caffe/net.hpp"

namespace caffe {

template <typename Dtype>
std::string FindNonFiniteSource(Net<Dtype>* net);

}  // namespace caffe

#endif  // CAFFE_UTIL_NON_FINITE_SCAN_HPP_
