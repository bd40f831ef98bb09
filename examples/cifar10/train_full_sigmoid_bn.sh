#!/usr/bin/env sh
# CIFAR-10 full with sigmoid units and BatchNorm (run from the Caffe root, after
# create_cifar10.sh); extra arguments go to `caffe train`.
set -e

./build/tools/caffe train --solver=examples/cifar10/cifar10_full_sigmoid_solver_bn.prototxt "$@"
