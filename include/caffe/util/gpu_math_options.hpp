// gpu_math_options.hpp: process-wide choices about the GPU libraries'
// arithmetic, which trade closeness to the CPU's results for speed.  Both
// are off by default; a user opts in with `caffe ... -allow_tf32` and
// `-conv_algo=find`, or caffe.set_allow_tf32(True) and
// caffe.set_conv_algo('find') in pycaffe.
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
//    is the first deterministic algorithm within the workspace limit.
//  * mem_param stays bit-identical with either option, within a process:
//    algorithms are deterministic, and Find's ranking is cached per shape,
//    so an optimized and an unoptimized net built in one process run the
//    same algorithms.  Across processes Find may rank differently (timing
//    noise), so two runs of a program may differ in the last bits.
//  * Settings are read when a convolution picks its algorithms (at
//    Reshape, when its shape or these settings changed) and at each cuBLAS
//    handle fetch; changing them between iterations is allowed.
//  * Compiled in every build; without CUDA they change nothing.
#ifndef CAFFE_UTIL_GPU_MATH_OPTIONS_HPP_
#define CAFFE_UTIL_GPU_MATH_OPTIONS_HPP_

#include <string>

namespace caffe {

enum class ConvAlgoSearch { kHeuristic = 0, kFind = 1 };

void SetAllowTf32(bool allow);
bool AllowTf32();

void SetConvAlgo(ConvAlgoSearch search);
ConvAlgoSearch ConvAlgo();

// "heuristic" or "find" (the spelling of the tool flag and of pycaffe's
// set_conv_algo); anything else throws caffe::Error naming the value.
ConvAlgoSearch ParseConvAlgo(const std::string& name);
const char* ConvAlgoName(ConvAlgoSearch search);

}  // namespace caffe

#endif  // CAFFE_UTIL_GPU_MATH_OPTIONS_HPP_
