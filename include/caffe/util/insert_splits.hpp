// insert_splits.hpp: makes every blob have at most one consumer.
//
// Contract: InsertSplits copies `param` into `param_split`, adding a Split
// layer after any top that feeds more than one bottom (or that feeds a
// bottom and also carries a loss weight), and renaming the consumers'
// bottoms to the split's tops.  Backward then sums the gradients in the
// Split layer instead of having layers overwrite each other's diffs.
#ifndef CAFFE_UTIL_INSERT_SPLITS_HPP_
#define CAFFE_UTIL_INSERT_SPLITS_HPP_

#include <string>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

void InsertSplits(const NetParameter& param, NetParameter* param_split);

string SplitLayerName(const string& layer_name, const string& blob_name,
                      int blob_idx);
string SplitBlobName(const string& layer_name, const string& blob_name,
                     int blob_idx, int split_idx);

}  // namespace caffe

#endif  // CAFFE_UTIL_INSERT_SPLITS_HPP_
