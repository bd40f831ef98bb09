// label_filter.hpp: which labels a softmax-based loss counts (all, or all
// but loss_param.ignore_label), as a value kernel bodies on either device
// can hold (SoftmaxWithLoss, InfogainLoss).
#ifndef CAFFE_LABEL_FILTER_HPP_
#define CAFFE_LABEL_FILTER_HPP_

#include "caffe/util/elementwise.hpp"

namespace caffe {

struct LabelFilter {
  bool has_ignore;
  int ignore;
  CAFFE_KERNEL bool ignored(int label) const {
    return has_ignore && label == ignore;
  }
};

}  // namespace caffe

#endif  // CAFFE_LABEL_FILTER_HPP_
