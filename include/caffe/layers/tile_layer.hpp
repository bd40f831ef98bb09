// TileLayer ("Tile"): repeats the bottom `tiles` times along one axis.
//
// Contract: tile_param.axis (default 1, may be negative) and tile_param.tiles
// (required, > 0).  The top has the bottom's shape with shape[axis]
// multiplied by tiles; the whole block of axes from `axis` on is repeated,
// so for each outer index the top holds tiles consecutive copies of the
// bottom's inner block.  Backward sums the copies' diffs and reads no data.
#ifndef CAFFE_TILE_LAYER_HPP_
#define CAFFE_TILE_LAYER_HPP_

#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class TileLayer : public Layer<Dtype> {
 public:
  explicit TileLayer(const LayerParameter& param) : Layer<Dtype>(param) {}
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  const char* type() const override { return "Tile"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsNothing;
    return c;
  }

 protected:
  void Forward_cpu(const vector<Blob<Dtype>*>& bottom,
                   const vector<Blob<Dtype>*>& top) override;
  void Backward_cpu(const vector<Blob<Dtype>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<Dtype>*>& bottom) override;
  DECLARE_GPU_FORWARD_BACKWARD;
  DECLARE_ON_BODIES;

  int axis_ = 1;
  int tiles_ = 1;
  int outer_dim_ = 0;  // product of the axes before axis_
  int inner_dim_ = 0;  // product of the axes from axis_ on
};

}  // namespace caffe

#endif  // CAFFE_TILE_LAYER_HPP_
