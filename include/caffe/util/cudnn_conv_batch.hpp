// cudnn_conv_batch.hpp: a cuDNN convolution over a batch of any size
// (USE_CUDA builds; issue 13, item 5).
//
// Contract:
//  * cuDNN's tensor descriptors count in int.  Where a batch's input or
//    output passes INT_MAX elements, the batch runs as consecutive chunks
//    of chunk() images: one CudnnConv for the full chunks and one for a
//    shorter last chunk, each chunk a call of its own at 64-bit image
//    offsets.  A batch that fits is one chunk and one CudnnConv, exactly
//    the engine the layer used before.
//  * Forward and BackwardData are per image, so chunks give the values of
//    one call; BackwardFilter adds each chunk's gradient into dw in chunk
//    order (CudnnConv's BackwardFilter adds), a fixed order, so results
//    stay deterministic and mem_param stays bit-identical.
//  * The caller checks that one image fits in int (FitsOneImage); building
//    needs no GPU (descriptors only), ChooseAlgorithms does.
#ifndef CAFFE_UTIL_CUDNN_CONV_BATCH_HPP_
#define CAFFE_UTIL_CUDNN_CONV_BATCH_HPP_

#ifdef USE_CUDA

#include <cstddef>
#include <memory>

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

  bool ChooseAlgorithms(size_t workspace_limit);
  size_t WorkspaceBytes() const;
  int chunk() const { return chunk_; }
  // The engine that runs the chunk starting at image `first`.
  const CudnnConv<Dtype>& EngineAt(int first) const;

  void Forward(const Dtype* x, const Dtype* w, Dtype* y, void* workspace);
  void BackwardData(const Dtype* w, const Dtype* dy, Dtype* dx,
                    void* workspace);
  void BackwardFilter(const Dtype* x, const Dtype* dy, Dtype* dw,
                      void* workspace);

 private:
  CudnnConv<Dtype>* MutableEngineAt(int first);

  int num_ = 0, chunk_ = 0;
  long in_image_ = 0, out_image_ = 0;  // elements per image
  std::unique_ptr<CudnnConv<Dtype> > full_, tail_;  // tail_: shorter last
};

}  // namespace caffe

#endif  // USE_CUDA
#endif  // CAFFE_UTIL_CUDNN_CONV_BATCH_HPP_
