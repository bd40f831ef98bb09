#!/usr/bin/env sh
# Trains the siamese example (run from the Caffe root, after
# create_mnist_siamese.sh); extra arguments go to `caffe train`.
set -e

./build/tools/caffe train --solver=examples/siamese/mnist_siamese_solver.prototxt "$@"
