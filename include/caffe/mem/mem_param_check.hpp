// mem_param_check.hpp: checks a net's mem_param once, where the net is built.
//
// Contract:
//  * CheckMemParam throws caffe::Error for a mem_param no plan can honour:
//    a level outside 0..2, a non-positive recompute budget (or auto: BUDGET
//    without one), and an exclude_blob or recompute checkpoint that names
//    no blob of the net.  The message names the field and the net and lists
//    the nearest blob names, so a typo is one glance away.  The caller adds
//    the file name (Net's file constructor and the solver do).
//  * A name that is not in this phase's net but is in the other phase's
//    (a TRAIN-only blob excluded in a shared prototxt) is not an error: it
//    comes back as a warning for the caller to log, and the planner
//    ignores it.
//  * Pure: no Net, no memory; the tests call it with name lists.
#ifndef CAFFE_MEM_MEM_PARAM_CHECK_HPP_
#define CAFFE_MEM_MEM_PARAM_CHECK_HPP_

#include <cstddef>
#include <string>
#include <vector>

#include "caffe/proto/caffe.pb.h"

namespace caffe {
namespace mem {

struct NetNames {
  std::string net;                     // the net's name, for messages
  std::string phase;                   // "TRAIN" or "TEST"
  std::vector<std::string> blobs;      // this phase's blobs
  std::vector<std::string> other_phase_blobs;
};

// mem_param.workspace_limit_mb in bytes (its default without mem_param);
// throws caffe::Error naming the net when it is not a positive number.
size_t WorkspaceLimitBytes(const MemoryOptimizationParameter& p,
                           const std::string& net);

// Returns the warnings; throws caffe::Error as described above.
std::vector<std::string> CheckMemParam(const MemoryOptimizationParameter& p,
                                       const NetNames& names);

// Up to `n` names closest to `name` by edit distance, closest first (ties
// in the order given).
std::vector<std::string> NearestNames(const std::string& name,
                                      const std::vector<std::string>& names,
                                      size_t n);

}  // namespace mem
}  // namespace caffe

#endif  // CAFFE_MEM_MEM_PARAM_CHECK_HPP_
