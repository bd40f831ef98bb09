#!/usr/bin/env sh
# Converts the CIFAR-10 binary batches in data/cifar10 (data_batch_1..5.bin,
# test_batch.bin) into examples/cifar10/cifar10_{train,test}_${DBTYPE} and
# computes the mean image, as Caffe's script of the same name.  Run from
# the Caffe root.
set -e

EXAMPLE=examples/cifar10
DATA=${DATA:-data/cifar10}
DBTYPE=${DBTYPE:-lmdb}

echo "Creating $DBTYPE..."
rm -rf $EXAMPLE/cifar10_train_$DBTYPE $EXAMPLE/cifar10_test_$DBTYPE
./build/tools/convert_cifar_data $DATA $EXAMPLE $DBTYPE

echo "Computing image mean..."
./build/tools/compute_image_mean -backend=$DBTYPE \
  $EXAMPLE/cifar10_train_$DBTYPE $EXAMPLE/mean.binaryproto
echo "Done."
