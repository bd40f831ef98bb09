#!/usr/bin/env sh
# Trains with examples/mnist/lenet_solver_rmsprop.prototxt (run from the Caffe root, after
# create_mnist.sh); extra arguments go to `caffe train`.
set -e

./build/tools/caffe train --solver=examples/mnist/lenet_solver_rmsprop.prototxt "$@"
