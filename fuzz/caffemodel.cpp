// A binary .caffemodel as CopyTrainedLayersFrom (caffe train --weights,
// caffe test, pycaffe Net(..., weights)) reads it: parse with Caffe's size
// limit, upgrade of legacy layers, matching layers by name and copying
// blobs with shape checks.
#include "caffe/net.hpp"
#include "fuzz_nets.hpp"
#include "fuzz_target.hpp"

LEANCAFFE_FUZZ_TARGET(caffemodel) {
  const std::string path =
      caffe::fuzz::WriteInput("fuzz.caffemodel", data, size);
  caffe::fuzz::Guard([&] {
    caffe::Net<float> net(caffe::fuzz::WeightsNet());
    net.CopyTrainedLayersFrom(path);
    net.Forward();
  });
}
