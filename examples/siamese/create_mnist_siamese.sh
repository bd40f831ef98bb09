#!/usr/bin/env sh
# Pairs the MNIST idx files in data/mnist into leveldb databases of image
# pairs for the siamese example, as Caffe's script of the same name.  Run
# from the Caffe root; DATA=/usr/share/datasets/fashion-mnist uses Debian's
# Fashion-MNIST instead.
set -e

EXAMPLES=examples/siamese
DATA=${DATA:-data/mnist}
BUILD=build/tools

find_file() {
  for f in "$DATA/$1" "$DATA/$1.gz"; do
    if [ -f "$f" ]; then echo "$f"; return; fi
  done
  echo "create_mnist_siamese.sh: $DATA/$1 not found" >&2
  exit 1
}

echo "Creating leveldb..."
rm -rf $EXAMPLES/mnist_siamese_train_leveldb $EXAMPLES/mnist_siamese_test_leveldb
$BUILD/convert_mnist_siamese_data "$(find_file train-images-idx3-ubyte)" \
  "$(find_file train-labels-idx1-ubyte)" $EXAMPLES/mnist_siamese_train_leveldb
$BUILD/convert_mnist_siamese_data "$(find_file t10k-images-idx3-ubyte)" \
  "$(find_file t10k-labels-idx1-ubyte)" $EXAMPLES/mnist_siamese_test_leveldb
echo "Done."
