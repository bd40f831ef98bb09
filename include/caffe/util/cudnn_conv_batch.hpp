// cudnn_conv_batch.hpp: a cuDNN convolution over a batch of any size
// (USE_CUDA builds; issue 13, item 5), each direction in as many images per
// call as fit.
//
// Contract:
//  * cuDNN's tensor descriptors count in int.  No call takes more than
//    int_chunk() images, the most whose input and output stay within
//    INT_MAX elements (the whole batch, where it fits).
//  * ChooseAlgorithms(limit) (a GPU is needed) chooses each direction on
//    its own: the largest number of images per call, from int_chunk() and
//    its halvings (LargestFittingChunk, util/conv_algorithm.hpp), for which
//    cuDNN offers a deterministic algorithm within `limit` -- for the
//    shorter last call too.  chunk(d) is 0 where none does; the layer then
//    runs that direction on its own path.  (Before, one direction without
//    an algorithm for the whole batch sent all three to the layer's path:
//    ten of ResNet-50's convolutions at batch 64 on the H200, in 64 MiB,
//    a third of the step; docs/gpu.md.)
//  * A direction runs its calls at 64-bit image offsets in image order.
//    Forward and BackwardData are per image, so the chunks give the values
//    of their engines' calls; BackwardFilter adds each call's gradient into
//    dw in image order, a fixed order.  The choice depends only on the
//    shapes, the limit, the math settings and cuDNN's ranking (kept per
//    shape for the process with Find), so mem_param, which uses the same
//    limit, stays bit-identical to no mem_param.
//  * The caller checks that one image fits in int (FitsOneImage).  Engines
//    are made on demand, one per number of images; building one needs no
//    GPU (descriptors only).
#ifndef CAFFE_UTIL_CUDNN_CONV_BATCH_HPP_
#define CAFFE_UTIL_CUDNN_CONV_BATCH_HPP_

#ifdef USE_CUDA

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "caffe/util/conv_algorithm.hpp"
#include "caffe/util/cudnn_conv.hpp"

namespace caffe {

template <typename Dtype>
class CudnnConvBatch {
 public:
  // True when one image's input and output each hold at most INT_MAX
  // elements, so some chunk size works.
  static bool FitsOneImage(const CudnnConvShape& batch);
  // `batch.num` is the whole batch.
  explicit CudnnConvBatch(const CudnnConvShape& batch);

  // True when some direction has an algorithm.
  bool ChooseAlgorithms(size_t workspace_limit);
  bool Has(ConvDirection d) const { return chunk(d) > 0; }
  int chunk(ConvDirection d) const { return chunk_[static_cast<int>(d)]; }
  // True when every direction runs the whole batch in one call.
  bool WholeBatchEverywhere() const;
  // For the log: each direction's images per call, or why it has none.
  std::string Describe() const;
  // For the log: what cuDNN offered for the largest call (int_chunk()
  // images, the whole batch where it fits) in each direction that does
  // not run it, one line each; empty when every direction does.
  std::string DescribeRankings() const;
  size_t WorkspaceBytes() const;
  int int_chunk() const { return int_chunk_; }
  // The engine for calls of `images` images (made on first use).
  const CudnnConv<Dtype>& EngineFor(int images) {
    return *Slot(images).engine;
  }

  void Forward(const Dtype* x, const Dtype* w, Dtype* y, void* workspace);
  void BackwardData(const Dtype* w, const Dtype* dy, Dtype* dx,
                    void* workspace);
  void BackwardFilter(const Dtype* x, const Dtype* dy, Dtype* dw,
                      void* workspace);

 private:
  // One engine per number of images per call, and whether its algorithms
  // were chosen under limit_.
  struct EngineSlot {
    std::unique_ptr<CudnnConv<Dtype> > engine;
    bool chosen = false;
  };
  // The slot for calls of `images` images, its engine made on first use.
  EngineSlot& Slot(int images);
  // The engine with algorithms chosen under limit_ (chosen on first use).
  CudnnConv<Dtype>* Chosen(int images);
  // The engine of the call starting at image `first` in direction d.
  CudnnConv<Dtype>* CallAt(ConvDirection d, int first);

  CudnnConvShape shape_;
  int num_ = 0, int_chunk_ = 0;
  long in_image_ = 0, out_image_ = 0;  // elements per image
  size_t limit_ = 0;
  int chunk_[kConvDirections] = {0, 0, 0};
  std::string why_[kConvDirections];  // for a direction without cuDNN
  // cuDNN's ranking for int_chunk() images, for a direction that runs
  // fewer per call (DescribeRankings).
  std::string largest_ranking_[kConvDirections];
  std::map<int, EngineSlot> engines_;  // by images per call
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_CONV_BATCH_HPP_
