#include "caffe/mem/net_graph.hpp"

namespace caffe {
namespace mem {

int NetGraph::BlobIndex(const std::string& name) const {
  for (size_t i = 0; i < blobs.size(); ++i)
    if (blobs[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace mem
}  // namespace caffe
