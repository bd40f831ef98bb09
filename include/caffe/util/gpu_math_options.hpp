// gpu_math_options.hpp: process-wide choices about the GPU libraries'
// arithmetic, which trade closeness to the CPU's results, or repeatable
// bits, for speed.  These three are off by default; a user opts in with `caffe
// ... -allow_tf32`, `-conv_algo=find` and `-allow_nondeterministic`, or
// caffe.set_allow_tf32(True), caffe.set_conv_algo('find') and
// caffe.set_allow_nondeterministic(True) in pycaffe.
//
// Contract:
//  * AllowTf32(): float convolutions may use cuDNN algorithms with
//    tensor-core math and cuBLAS may use TF32 tensor cores (a 10-bit
//    mantissa in the products, as PyTorch's allow_tf32).  GPU results then
//    leave the tolerance the GPU tests state against the CPU.  Doubles are
//    unaffected.
//  * ConvAlgo(): kHeuristic takes cuDNN's heuristic ranking; kFind times
//    the candidates (cudnnFind*Algorithm) once per convolution shape in
//    the process and ranks them by measured time.  Either way the choice
//    is the first deterministic algorithm within the workspace limit
//    (any algorithm, with AllowNondeterministic).
//  * AllowNondeterministic(): the choice may also be an algorithm that
//    cuDNN marks nondeterministic (backward to the filter or the data
//    adding partial sums with atomics, in an order that varies), as BVLC
//    Caffe's cuDNN layers chose them.  Then two runs of one net, and a
//    net with and without mem_param, may differ in the last bits of
//    their gradients; what stays is the tolerance against the CPU.
//  * mem_param stays bit-identical with TF32 and Find, within a process:
//    algorithms are deterministic, and Find's ranking is cached per shape,
//    so an optimized and an unoptimized net built in one process run the
//    same algorithms.  Across processes Find may rank differently (timing
//    noise), so two runs of a program may differ in the last bits.
//  * Settings are read when a convolution picks its algorithms (at
//    Reshape, when its shape or these settings changed) and at each cuBLAS
//    handle fetch; changing them between iterations is allowed.
//  * ChannelSplit(): how many blocks share each channel of the GPU's
//    channel sums (BatchNorm's statistics and gradient means, the Scale's
//    and Bias's parameter gradients, a convolution's bias gradient).  0,
//    the default: chosen by shape (gpu_launch.cuh: enough blocks to fill
//    the device once, each thread still reading a full read-ahead of
//    terms); 1 to 8: that many for every channel, which tests use to run
//    the shared sums on small shapes.  Blocks share a channel only where
//    the device and the code have thread-block clusters (sm_90 and
//    later); elsewhere each channel has one block.  The split changes how
//    the sums round, not mem_param's bit-identity: both runs of a process
//    split alike.  `caffe ... -channel_split=N` sets it, to compare.
//  * Compiled in every build; without CUDA they change nothing.
#ifndef CAFFE_UTIL_GPU_MATH_OPTIONS_HPP_
#define CAFFE_UTIL_GPU_MATH_OPTIONS_HPP_

#include <string>

namespace caffe {

enum class ConvAlgoSearch { kHeuristic = 0, kFind = 1 };

void SetAllowTf32(bool allow);
bool AllowTf32();

void SetAllowNondeterministic(bool allow);
bool AllowNondeterministic();

void SetConvAlgo(ConvAlgoSearch search);
ConvAlgoSearch ConvAlgo();

// "heuristic" or "find" (the spelling of the tool flag and of pycaffe's
// set_conv_algo); anything else throws caffe::Error naming the value.
ConvAlgoSearch ParseConvAlgo(const std::string& name);
const char* ConvAlgoName(ConvAlgoSearch search);

// Throws caffe::Error for a value outside 0..8.
void SetChannelSplit(int blocks);
int ChannelSplit();

}  // namespace caffe

#endif  // CAFFE_UTIL_GPU_MATH_OPTIONS_HPP_
