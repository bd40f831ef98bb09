// base_conv_layer.hpp: parameters, shapes and GEMM helpers shared by
// Convolution and Deconvolution (not a registered layer type).
//
// Contract (Caffe 1.0 semantics):
//  * convolution_param: num_output (> 0), kernel_size (once, or once per
//    spatial axis) or kernel_h/kernel_w (2-D only), pad / pad_h,pad_w
//    (default 0), stride / stride_h,stride_w (default 1), dilation (default
//    1), group (divides channels and num_output), bias_term, axis (the
//    channel axis; the axes before it are batch axes, all axes after it are
//    spatial), force_nd_im2col, weight_filler, bias_filler.
//  * blobs_[0] is the weight, shaped
//    conv_out_channels x (conv_in_channels / group) x kernel..., where for
//    Convolution (out, in) = (num_output, channels) and for Deconvolution
//    (out, in) = (channels, num_output); blobs_[1] is the bias
//    (num_output), present when bias_term.  Weights given in the layer
//    parameter must match these shapes.
//  * All bottoms must have the same shape; top i is computed from bottom i
//    with the shared weights.
//
// Engines: for float 2-D convolution (not force_nd_im2col) with engine
// DEFAULT (or CUDNN, which a CPU build cannot honour) and a build with
// USE_DNNL, Convolution runs on oneDNN (util/dnnl_conv.hpp); engine CAFFE,
// double, N-D and anything oneDNN cannot run use im2col + GEMM.  Reshape
// picks the engine; a few oneDNN setups are cached per layer by shape.
// The oneDNN engine's reorder buffers and scratchpad use the same shared
// workspace as the column buffer, and WorkspaceBytes() reports its need.
//
// Memory: the im2col column buffer is NOT per-layer state.  Every
// convolution and deconvolution layer (and other layers' per-call scratch,
// e.g. oneDNN pooling) running on one thread shares one workspace
// (util/parallel.hpp SharedWorkspace, thread_local), grown to the largest
// size needed and
// never kept meaningful between Forward and Backward (Backward redoes
// im2col).  So InternalBytes() is 0.  Under a memory plan the workspace is
// the layer's scratch (ScratchMemory, sized in Reshape for the mode's
// device): the plan places it in its arena at each step the layer runs,
// and the layer uses the shared workspace only outside planned steps.
// WorkspaceBytes() is this layer's host need after Reshape and the static
// ColBufferBytes() what the calling thread's workspace holds now.
#ifndef CAFFE_BASE_CONVOLUTION_LAYER_HPP_
#define CAFFE_BASE_CONVOLUTION_LAYER_HPP_

#include <memory>
#include <vector>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/proto/caffe.pb.h"
#include "caffe/util/dnnl_conv.hpp"
#include "caffe/util/scratch.hpp"

namespace caffe {

struct ConvGeometry;  // util/im2col_kernels.hpp
struct ConvGeometryNd;

template <typename Dtype>
class BaseConvolutionLayer : public Layer<Dtype> {
 public:
  explicit BaseConvolutionLayer(const LayerParameter& param)
      : Layer<Dtype>(param) {}
  // Frees the calling thread's shared workspace: it counts as host memory
  // in use (and against the memory limit), so a net's column buffers must
  // not outlive it; the next convolution grows it again.
  ~BaseConvolutionLayer() override { ReleaseColBuffer(); }
  void LayerSetUp(const vector<Blob<Dtype>*>& bottom,
                  const vector<Blob<Dtype>*>& top) override;
  void Reshape(const vector<Blob<Dtype>*>& bottom,
               const vector<Blob<Dtype>*>& top) override;

  int MinBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  bool EqualNumBottomTopBlobs() const override { return true; }

  // The memory contract (layer.hpp MemoryContract).
  MemoryContract Memory() const override {
    MemoryContract c;
    // The weight gradient needs the input; the output is never read.
    c.backward_reads = kReadsBottomData;
    return c;
  }
  size_t InternalBytes() const override { return 0; }

  SyncedMemory* ScratchMemory() const override { return scratch_.get(); }

  // Bytes of shared workspace this layer needs: for im2col the column
  // buffer (0 for 1x1 kernels with unit stride and no padding, which
  // multiply the input directly); for oneDNN its scratchpad and reorders.
  size_t WorkspaceBytes() const;
  // True when the last Reshape chose the oneDNN engine.
  bool UsesDnnl() const { return dnnl_ != nullptr; }
  // Bytes currently held by the calling thread's shared workspace: the
  // largest need among the layers run on this thread so far.
  static size_t ColBufferBytes();
  // Frees the calling thread's workspace (it regrows on demand).
  static void ReleaseColBuffer();

 protected:
  // One image's products on either device (util/device_math.hpp): the
  // host BLAS and im2col_cpu, or cuBLAS and the GPU im2col bodies.
  // y = W * im2col(x) (skip_im2col: the workspace already holds im2col(x)).
  void forward_gemm(bool gpu, const Dtype* input, const Dtype* weights,
                    Dtype* output, bool skip_im2col = false);
  // x = col2im(W^T * y).
  void backward_gemm(bool gpu, const Dtype* output, const Dtype* weights,
                     Dtype* input);
  // dW += dy * im2col(x)^T; leaves im2col(x) in the workspace.
  void weight_gemm(bool gpu, const Dtype* input, const Dtype* output,
                   Dtype* weights);
  void forward_cpu_gemm(const Dtype* input, const Dtype* weights,
                        Dtype* output, bool skip_im2col = false) {
    forward_gemm(false, input, weights, output, skip_im2col);
  }
  void backward_cpu_gemm(const Dtype* output, const Dtype* weights,
                         Dtype* input) {
    backward_gemm(false, output, weights, input);
  }
  void weight_cpu_gemm(const Dtype* input, const Dtype* output,
                       Dtype* weights) {
    weight_gemm(false, input, output, weights);
  }
  void forward_cpu_bias(Dtype* output, const Dtype* bias);
  // db += sum over space of dy for one image.
  void backward_cpu_bias(Dtype* bias, const Dtype* input);
  // The GPU path (USE_CUDA builds; defined only there): im2col on the
  // device into the layer's scratch, the 2-D bodies for 2-D convolution,
  // the N-D bodies (which the CPU runs too) otherwise.
  bool uses_2d_im2col() const {
    return !force_nd_im2col_ && num_spatial_axes_ == 2;
  }
  void forward_gpu_gemm(const Dtype* input, const Dtype* weights,
                        Dtype* output) {
    forward_gemm(true, input, weights, output);
  }
  void backward_gpu_gemm(const Dtype* output, const Dtype* weights,
                         Dtype* input) {
    backward_gemm(true, output, weights, input);
  }
  void weight_gpu_gemm(const Dtype* input, const Dtype* output,
                       Dtype* weights) {
    weight_gemm(true, input, output, weights);
  }
  // bias over all num_ images of one top: add (forward), reduce (backward).
  void forward_gpu_bias(Dtype* output, const Dtype* bias);
  void backward_gpu_bias(Dtype* bias, const Dtype* input);
  ConvGeometry Geometry() const;
  ConvGeometryNd GeometryNd() const;

  int input_shape(int i) const { return conv_input_shape_[i]; }
  // The host workspace of WorkspaceBytes() (64-byte aligned).
  void* Workspace();
  // Bytes of per-call scratch on the given device: WorkspaceBytes() on the
  // host, the column buffer on the GPU (ConvolutionLayer adds cuDNN's).
  virtual size_t ScratchBytes(bool gpu);
  // At least `bytes` of scratch on that device: the planned scratch while
  // the plan has it placed (during this layer's step), else the thread's
  // shared workspace.
  void* ScratchOn(bool gpu, size_t bytes);
  // Deconvolution swaps the roles of input and output.
  virtual bool reverse_dimensions() = 0;
  // Fills output_shape_ from the spatial input shape.
  virtual void compute_output_shape() = 0;

  // Per spatial axis.
  vector<int> kernel_shape_;
  vector<int> stride_;
  vector<int> pad_;
  vector<int> dilation_;
  // [conv_in_channels, conv input spatial...].
  vector<int> conv_input_shape_;
  // [kernel_dim * group, conv output spatial...].
  vector<int> col_buffer_shape_;
  vector<int> output_shape_;
  const vector<int>* bottom_shape_ = nullptr;

  int num_spatial_axes_ = 0;
  int bottom_dim_ = 0;
  int top_dim_ = 0;
  int channel_axis_ = 1;
  int num_ = 0;
  int channels_ = 0;
  int group_ = 1;
  int out_spatial_dim_ = 0;
  int weight_offset_ = 0;
  int num_output_ = 0;
  bool bias_term_ = true;
  bool is_1x1_ = false;
  bool force_nd_im2col_ = false;
  // The oneDNN setup for the current shape; null means im2col.
  std::shared_ptr<DnnlConv> dnnl_;

 private:
  // Chooses the engine for the current shapes (end of Reshape).
  void SelectEngine();
  // Recently used oneDNN setups, and shapes oneDNN declined.
  vector<std::shared_ptr<DnnlConv> > dnnl_cache_;
  vector<DnnlConvShape> dnnl_declined_;
  // Host scratch of at least count elements (ScratchOn).
  Dtype* ColBuffer(size_t count);
  Scratch scratch_;  // sized for the mode's device at the end of Reshape
  // Elements of workspace this layer needs.
  size_t ColCount() const;
  void conv_im2col_cpu(const Dtype* data, Dtype* col_buff);
  void conv_col2im_cpu(const Dtype* col_buff, Dtype* data);
  // The column buffer, im2col and col2im of the given device.
  Dtype* ColumnsOn(bool gpu);
  void Im2colOn(bool gpu, const Dtype* data, Dtype* col_buff);
  void Col2imOn(bool gpu, const Dtype* col_buff, Dtype* data);

  int conv_out_channels_ = 0;
  int conv_in_channels_ = 0;
  int conv_out_spatial_dim_ = 0;
  int kernel_dim_ = 0;
  int col_offset_ = 0;
  int output_offset_ = 0;
};

}  // namespace caffe

#endif  // CAFFE_BASE_CONVOLUTION_LAYER_HPP_
